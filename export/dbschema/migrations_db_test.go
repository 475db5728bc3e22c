package dbschema_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/internal/dbwrite"
)

// TestTableMissingIndexes: MissingIndexes gives BuildIndexes' statements
// for exactly the indexes the database lacks: all those a first load
// drops once dropped, none once built.
func TestTableMissingIndexes(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, d := migratedTestDB(t, url)
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		tb, _ := dbschema.Lookup("attempts")
		missing := func() []string {
			got, err := tb.MissingIndexes(ctx, conn, d)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		for _, s := range tb.BuildIndexes(d) {
			if _, err := conn.ExecContext(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		if got := missing(); len(got) != 0 {
			t.Errorf("after the builds, missing %q", got)
		}
		var want []string
		for _, s := range tb.DropForLoad(d) {
			if _, err := conn.ExecContext(ctx, s); err != nil {
				t.Fatal(err)
			}
			dropped := strings.Fields(s)[len(strings.Fields(s))-1]
			for _, b := range tb.BuildIndexes(d) {
				if strings.Fields(b)[5] == dropped {
					want = append(want, b)
				}
			}
		}
		if got := missing(); len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("after DropForLoad, missing %q, want %q", got, want)
		}
	})
}

// TestMigrateAddsTheBudgetTable: a database an earlier edapp wrote (its
// schema before edapp_export_budget) gets the table, and keeps its rows.
func TestMigrateAddsTheBudgetTable(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, dialect := openTestDB(t, url)
		// The schema before the budget table (version 4), with a row to keep.
		const budgetVersion = 4
		schemaAt(t, db, dialect, budgetVersion-1)
		if _, err := db.Exec(`INSERT INTO users (id, name) VALUES ('u1', 'kept')`); err != nil {
			t.Fatal(err)
		}
		if err := dbschema.NewMigrator(db, dialect).Up(ctx); err != nil {
			t.Fatal(err)
		}
		var n, v int
		if err := db.QueryRow(`SELECT COUNT(*) FROM edapp_export_budget`).Scan(&n); err != nil {
			t.Fatalf("the budget table: %v", err)
		}
		if err := db.QueryRow(`SELECT MAX(version) FROM edapp_schema`).Scan(&v); err != nil || v != latestVersion() {
			t.Errorf("schema version %d, %v", v, err)
		}
		if err := db.QueryRow(`SELECT COUNT(*) FROM users WHERE name = 'kept' AND source = 'edapp'`).Scan(&n); err != nil || n != 1 {
			t.Errorf("the users row: %d, %v", n, err)
		}
	})
}

// TestMigrateFoldsRejectsByRecord: the migration to one reject per record
// folds the rows kept before into one per record with an identity (the
// latest, counting them, first_rejected_at the earliest) and keeps each
// row without one.
func TestMigrateFoldsRejectsByRecord(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
		db, d := openTestDB(t, url)
		schemaAt(t, db, d, rejectsByRecordVersion-1)
		at := func(day int) any {
			tm := time.Date(2026, 3, day, 9, 0, 0, 0, time.UTC)
			if d == dbschema.SQLite {
				return tm.Format(dbwrite.TimeLayout)
			}
			return tm
		}
		insert := dbwrite.Rebind(d, `INSERT INTO rejects (source, kind, identity, reason, raw, run, rejected_at) VALUES ('edapp', 'users', ?, ?, '{}', ?, ?)`)
		for i, identity := range []any{"u1", nil, "u1", nil, "u1", "u2"} {
			if _, err := db.Exec(insert, identity, fmt.Sprint("reason ", i), i+1, at(i+1)); err != nil {
				t.Fatal(err)
			}
		}
		if err := dbschema.NewMigrator(db, d).Up(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := rowIDs(t, db, `SELECT record_key || ' ' || COALESCE(identity, '-') || ' ' || reason || ' ' || CAST(count AS TEXT) || ' ' || CAST(run AS TEXT) FROM rejects ORDER BY id`)
		want := []string{"id:2 - reason 1 1 2", "id:4 - reason 3 1 4", "u1 u1 reason 4 3 5", "u2 u2 reason 5 1 6"}
		if !slices.Equal(got, want) {
			t.Errorf("rejects after the migration\n%q, want\n%q", got, want)
		}
		var first string
		if err := db.QueryRow(`SELECT CAST(first_rejected_at AS TEXT) FROM rejects WHERE record_key = 'u1'`).Scan(&first); err != nil || !strings.Contains(first, "2026-03-01") {
			t.Errorf("u1 first rejected at %q (%v), want 1 March", first, err)
		}
	})
}

// rejectsByRecordVersion is the schema version from which rejects holds
// one row per record.
const rejectsByRecordVersion = 19

// schemaAt makes db's schema as version v of the migrations leaves it,
// as the release that stopped at v would have.
func schemaAt(t *testing.T, db *sql.DB, d dbschema.Dialect, v int) {
	t.Helper()
	stmts := []string{`CREATE TABLE edapp_schema (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at ` + dbschema.Time.SQL(d) + ` NOT NULL)`}
	for _, m := range dbschema.Migrations()[:v] {
		stmts = append(stmts, m.SQL(d)...)
		stmts = append(stmts, dbwrite.Rebind(d, `INSERT INTO edapp_schema (version, name, applied_at) VALUES (?, ?, CURRENT_TIMESTAMP)`))
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	n := 0
	for _, s := range stmts {
		var args []any
		if strings.HasPrefix(s, "INSERT INTO edapp_schema") {
			n++
			args = []any{n, dbschema.Migrations()[n-1].Name}
		}
		if _, err := tx.Exec(s, args...); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// rowIDs is the one text column of q's rows, read from a pool or a
// connection.
func rowIDs(t *testing.T, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, q string) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
