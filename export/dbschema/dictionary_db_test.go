package dbschema_test

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/dbtest"
)

// TestMigrateWritesDictionary checks that every open leaves the data
// dictionary in the database, once: a comment on every table and column
// in PostgreSQL (what \d+ shows), a row per column in SQLite's
// edapp_columns. It also checks that the dictionary's tables outside the
// migrations (edapp_schema) have the columns the dictionary names;
// TestMigrateMatchesFold checks the others' types.
func TestMigrateWritesDictionary(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
		db, dialect := migratedTestDB(t, url)
		if err := dbschema.NewMigrator(db, dialect).Up(context.Background()); err != nil {
			t.Fatalf("second open: %v", err)
		}
		for _, tb := range dbschema.Dictionary() {
			if tb.Name == "edapp_columns" && dialect == dbschema.Postgres {
				continue
			}
			if live, want := columnNames(readLiveTable(t, db, dialect, tb.Name)), columnNames(foldedTable(tb, dialect)); !slices.Equal(live, want) {
				t.Errorf("%s: database columns %v, dictionary %v", tb.Name, live, want)
			}
			if dialect == dbschema.Postgres {
				var comment sql.NullString
				db.QueryRow(`SELECT obj_description($1::regclass, 'pg_class')`, tb.Name).Scan(&comment)
				if comment.String != tb.Description {
					t.Errorf("%s: table comment %q, want %q", tb.Name, comment.String, tb.Description)
				}
			}
			for i, c := range tb.Columns {
				got := describedColumn(t, db, dialect, tb.Name, c.Name, i+1)
				if !strings.Contains(got, c.Description) {
					t.Errorf("%s.%s: described as %q, want %q", tb.Name, c.Name, got, c.Description)
				}
			}
		}
		if dialect == dbschema.SQLite {
			var rows, columns int
			db.QueryRow(`SELECT COUNT(*) FROM edapp_columns`).Scan(&rows)
			for _, tb := range dbschema.Dictionary() {
				columns += len(tb.Columns)
			}
			if rows != columns {
				t.Errorf("edapp_columns has %d rows after two opens, want %d", rows, columns)
			}
		}
	})
}

// describedColumn is the meaning the database holds for a column: its
// comment in PostgreSQL, its edapp_columns row in SQLite (at its place).
func describedColumn(t *testing.T, db *sql.DB, d dbschema.Dialect, table, column string, position int) string {
	t.Helper()
	var got sql.NullString
	q := `SELECT col_description($1::regclass, a.attnum) FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attname = $2`
	args := []any{table, column}
	if d == dbschema.SQLite {
		q = `SELECT meaning FROM edapp_columns WHERE table_name = ? AND column_name = ? AND position = ?`
		args = append(args, position)
	}
	if err := db.QueryRow(q, args...).Scan(&got); err != nil && err != sql.ErrNoRows {
		t.Fatal(err)
	}
	return got.String
}

// columnNames are the names of t's columns, in order.
func columnNames(t liveTable) []string {
	var out []string
	for _, c := range t.columns {
		out = append(out, strings.Fields(c)[0])
	}
	return out
}

// TestMigrateByANonOwnerOfAnUpToDateDatabase checks that a role that may
// write the tables but does not own them (and so may not comment on them)
// opens a database whose owner brought the schema and its dictionary up
// to date: the dictionary writes nothing that is already there.
func TestMigrateByANonOwnerOfAnUpToDateDatabase(t *testing.T) {
	t.Parallel()
	url := dbtest.Postgres(t)
	db, _ := migratedTestDB(t, url)
	role := "writer_" + url[strings.LastIndex(url, "/")+1:strings.Index(url, "?")]
	for _, q := range []string{"CREATE ROLE " + role + " LOGIN", "GRANT ALL ON ALL TABLES IN SCHEMA public TO " + role, "GRANT USAGE, CREATE ON SCHEMA public TO " + role} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	writer, dialect := openTestDB(t, strings.Replace(url, "postgres@", role+"@", 1))
	if err := dbschema.NewMigrator(writer, dialect).Up(context.Background()); err != nil {
		t.Fatalf("open by %s: %v", role, err)
	}
}

// TestMigrateRewritesOnlyAStaleDictionary: an open of a database whose
// dictionary is current writes nothing (SQLite's data_version, which
// counts the commits of other connections that changed the file, stays);
// one that finds a meaning changed by hand, or a row gone, writes it back.
func TestMigrateRewritesOnlyAStaleDictionary(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, dialect := migratedTestDB(t, url)
		users, _ := dbschema.Lookup("users")
		want := users.Columns[1].Description
		if dialect == dbschema.SQLite {
			watcher, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer watcher.Close()
			dataVersion := func() (v int) {
				if err := watcher.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
					t.Fatal(err)
				}
				return v
			}
			before := dataVersion()
			if err := dbschema.NewMigrator(db, dialect).Up(ctx); err != nil {
				t.Fatal(err)
			}
			if after := dataVersion(); after != before {
				t.Errorf("an open of a current database wrote to it (data_version %d, then %d)", before, after)
			}
		}
		stale := []string{`COMMENT ON COLUMN users.` + users.Columns[1].Name + ` IS 'changed by hand'`}
		if dialect == dbschema.SQLite {
			stale = []string{`UPDATE edapp_columns SET meaning = 'changed by hand' WHERE table_name = 'users' AND position = 2`,
				`DELETE FROM edapp_columns WHERE table_name = 'groups' AND position = 1`}
		}
		for _, q := range stale {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		if err := dbschema.NewMigrator(db, dialect).Up(ctx); err != nil {
			t.Fatal(err)
		}
		if got := describedColumn(t, db, dialect, "users", users.Columns[1].Name, 2); !strings.Contains(got, want) {
			t.Errorf("users.%s: described as %q after an open, want %q", users.Columns[1].Name, got, want)
		}
		if dialect == dbschema.SQLite {
			groups, _ := dbschema.Lookup("groups")
			if got := describedColumn(t, db, dialect, "groups", groups.Columns[0].Name, 1); got != groups.Columns[0].Description {
				t.Errorf("groups.%s: described as %q after an open, want %q", groups.Columns[0].Name, got, groups.Columns[0].Description)
			}
		}
	})
}

// TestMigrateOfACurrentPostgresDatabaseTakesNoLock: an open of a
// PostgreSQL database that is current reads it and goes on, while another
// migration holds the lock; one that finds a comment changed waits for the
// lock to write it back.
func TestMigrateOfACurrentPostgresDatabaseTakesNoLock(t *testing.T) {
	t.Parallel()
	db, dialect := migratedTestDB(t, dbtest.Postgres(t))
	ctx := context.Background()
	holder, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	const migrationLock = 0x6564617070_2d7363 // dbschema's advisoryKey
	if _, err := holder.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, int64(migrationLock)); err != nil {
		t.Fatal(err)
	}
	current, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := dbschema.NewMigrator(db, dialect).Up(current); err != nil {
		t.Fatalf("open of a current database while another migration holds the lock: %v", err)
	}
	if _, err := db.Exec(`COMMENT ON TABLE users IS 'changed by hand'`); err != nil {
		t.Fatal(err)
	}
	stale, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := dbschema.NewMigrator(db, dialect).Up(stale); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("open of a database with a comment changed: %v, want it to wait for the lock", err)
	}
	if _, err := holder.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, int64(migrationLock)); err != nil {
		t.Fatal(err)
	}
	if err := dbschema.NewMigrator(db, dialect).Up(ctx); err != nil {
		t.Fatal(err)
	}
	var comment string
	if err := db.QueryRow(`SELECT obj_description('users'::regclass, 'pg_class')`).Scan(&comment); err != nil {
		t.Fatal(err)
	}
	if comment == "changed by hand" {
		t.Error("the changed comment was not written back")
	}
}

// TestDictionaryHoldsEveryRelation: every table and view the database
// holds after the migrations is in the data dictionary, and each of
// edapp's own tables outside the migrations (edapp_schema) has, on
// PostgreSQL, the types the dictionary gives (int is bigint).
func TestDictionaryHoldsEveryRelation(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
		db, dialect := migratedTestDB(t, url)
		q := `SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name`
		if dialect == dbschema.Postgres {
			q = `SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'v') ORDER BY relname`
		}
		described := map[string]dbschema.Table{}
		for _, tb := range dbschema.Dictionary() {
			described[tb.Name] = tb
		}
		for _, row := range rowsOfDB(t, db, q) {
			if _, ok := described[row[0]]; !ok {
				t.Errorf("%s is not in the data dictionary", row[0])
			}
		}
		if dialect == dbschema.Postgres {
			tb := described["edapp_schema"]
			if live, want := readLiveTable(t, db, dialect, tb.Name).columns, foldedTable(tb, dialect).columns; !slices.Equal(live, want) {
				t.Errorf("%s: database columns %v, dictionary %v", tb.Name, live, want)
			}
		}
	})
}
