package dbschema_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/edapp-go/edapp/export/sqldest"
)

// The schema against real databases: a fresh SQLite file and a fresh
// database on a PostgreSQL server the test binary starts. The helpers are
// the edapp command's tests' own.

func TestMain(m *testing.M) { dbtest.Main(m) }

// eachDatabase runs f against a fresh SQLite file and a fresh PostgreSQL
// database.
func eachDatabase(t *testing.T, f func(t *testing.T, url string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, dbtest.SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, dbtest.Postgres(t)) })
}

// openTestDB opens url as the edapp command opens a --db URL.
func openTestDB(t *testing.T, url string) (*sql.DB, dbschema.Dialect) {
	t.Helper()
	db := dbtest.Open(t, url, sqldest.SQLiteDSN)
	if dbtest.IsPostgres(url) {
		return db, dbschema.Postgres
	}
	return db, dbschema.SQLite
}

// migratedTestDB is openTestDB with the schema at its latest version.
func migratedTestDB(t *testing.T, url string) (*sql.DB, dbschema.Dialect) {
	t.Helper()
	db, dialect := openTestDB(t, url)
	if err := dbschema.NewMigrator(db, dialect).Up(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, dialect
}

// TestMigrateMatchesFold checks that applying every migration to a real
// database leaves exactly the tables dbschema.Tables folds from the steps:
// the same columns, types, nullability, keys and indexes.
func TestMigrateMatchesFold(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, url string) {
		db, dialect := migratedTestDB(t, url)
		for _, tb := range dbschema.Tables() {
			got := readLiveTable(t, db, dialect, tb.Name)
			want := foldedTable(tb, dialect)
			if !slices.Equal(got.columns, want.columns) || !slices.Equal(got.key, want.key) || !slices.Equal(got.indexes, want.indexes) {
				t.Errorf("%s:\n database %+v\n fold     %+v", tb.Name, got, want)
			}
		}
	})
}

// liveTable is a table as a database reports it.
type liveTable struct {
	columns []string // "name type NULL|NOT NULL", in order
	key     []string
	indexes []string // the secondary indexes' names, sorted, " hash" after a hash index
}

// foldedTable is tb as readLiveTable would report it in d.
func foldedTable(tb dbschema.Table, d dbschema.Dialect) liveTable {
	pgTypes := map[dbschema.Type]string{dbschema.Text: "text", dbschema.Int: "bigint", dbschema.Real: "double precision",
		dbschema.Bool: "boolean", dbschema.Time: "timestamp with time zone", dbschema.JSON: "jsonb", dbschema.Serial: "bigint"}
	var out liveTable
	for _, c := range tb.Columns {
		typ := c.Type.SQL(d)
		if d == dbschema.Postgres {
			typ = pgTypes[c.Type]
		}
		out.columns = append(out.columns, c.Name+" "+typ+" "+nullWord(!c.Nullable))
	}
	out.key = tb.Key
	for _, idx := range tb.Indexes {
		name := tb.Name + "_" + strings.Join(idx.Columns, "_") + "_idx"
		if idx.Hash && d == dbschema.Postgres {
			name += " hash"
		}
		if !idx.Deferred {
			out.indexes = append(out.indexes, name)
		}
	}
	slices.Sort(out.indexes)
	return out
}

func nullWord(notNull bool) string {
	if notNull {
		return "NOT NULL"
	}
	return "NULL"
}

func readLiveTable(t *testing.T, db *sql.DB, d dbschema.Dialect, name string) liveTable {
	t.Helper()
	var out liveTable
	if d == dbschema.SQLite {
		scanRows(t, db, `SELECT name, type, "notnull", pk FROM pragma_table_info(?) ORDER BY cid`, name, func(r *sql.Rows) error {
			var col, typ string
			var notNull bool
			var pk int
			err := r.Scan(&col, &typ, &notNull, &pk)
			out.columns = append(out.columns, col+" "+typ+" "+nullWord(notNull))
			if pk > 0 {
				out.key = slices.Insert(out.key, min(pk-1, len(out.key)), col)
			}
			return err
		})
		scanRows(t, db, `SELECT name FROM pragma_index_list(?) WHERE origin = 'c' ORDER BY name`, name, func(r *sql.Rows) error {
			var idx string
			err := r.Scan(&idx)
			out.indexes = append(out.indexes, idx)
			return err
		})
		return out
	}
	scanRows(t, db, `SELECT column_name, data_type, is_nullable FROM information_schema.columns
WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, name, func(r *sql.Rows) error {
		var col, typ, nullable string
		err := r.Scan(&col, &typ, &nullable)
		out.columns = append(out.columns, col+" "+typ+" "+nullWord(nullable == "NO"))
		return err
	})
	scanRows(t, db, `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)`, name, func(r *sql.Rows) error {
		var col string
		err := r.Scan(&col)
		out.key = append(out.key, col)
		return err
	})
	scanRows(t, db, `SELECT indexname || CASE WHEN indexdef LIKE '% USING hash %' THEN ' hash' ELSE '' END FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1
AND indexname <> $1 || '_pkey' ORDER BY 1`, name, func(r *sql.Rows) error {
		var idx string
		err := r.Scan(&idx)
		out.indexes = append(out.indexes, idx)
		return err
	})
	slices.Sort(out.indexes) // in byte order, as foldedTable sorts
	return out
}

func scanRows(t *testing.T, db *sql.DB, q string, arg any, scan func(*sql.Rows) error) {
	t.Helper()
	rows, err := db.Query(q, arg)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// rowsOfDB is the rows query returns, each value as text.
func rowsOfDB(t *testing.T, db *sql.DB, query string) [][]string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := scanAny(t, rows, len(cols))
		row := make([]string, len(cols))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			row[i] = fmt.Sprint(v)
		}
		out = append(out, row)
	}
	return out
}

// scanAny scans the current row of rows, n columns, into values of the
// driver's own types.
func scanAny(t testing.TB, rows *sql.Rows, n int) []any {
	t.Helper()
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	return vals
}
