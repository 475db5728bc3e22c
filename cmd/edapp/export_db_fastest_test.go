//go:build linux

package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/edapp-go/edapp/export/sqldest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// benchIdentities times the identities refresh of the database an export
// wrote, on its own (the export ran one at its end).
func benchIdentities(t *testing.T, url string) {
	db, d := openTestDB(t, url)
	start := time.Now()
	if err := sqldest.RebuildIdentities(context.Background(), db, d); err != nil {
		t.Fatal(err)
	}
	t.Logf("  identities refresh on %v: %.2f s", d, time.Since(start).Seconds())
}

// loadTable is a table's rows, read back from an export.
type loadTable struct {
	t    dbschema.Table
	rows [][]any
}

// benchFastestLoad loads the rows the export into url wrote into a new
// database of the same kind by the fastest path the engine has: one
// transaction of plain multi-row inserts on SQLite, COPY straight into the
// tables on PostgreSQL; the tables start as the export's first load does,
// without the indexes it leaves out, and end with them built. The history
// tables' rows are loaded as the export wrote them, with no trigger firing
// (withoutTriggers). It returns
// the figures of the load and the builds, and the new database.
func benchFastestLoad(t *testing.T, url string) (load fastestLoad, dst *sql.DB) {
	src, d := openTestDB(t, url)
	var tables []loadTable
	for _, tb := range dbschema.Tables() {
		if strings.HasPrefix(tb.Name, "edapp_") || tb.Name == "identities" {
			continue
		}
		if rows := readTable(t, src, d, tb); len(rows) > 0 {
			tables = append(tables, loadTable{tb, rows})
		}
	}
	dstURL := dbtest.SQLite(t)
	if d == dbschema.Postgres {
		dstURL = dbtest.Postgres(t)
	}
	dst, _ = migratedTestDB(t, dstURL)
	for _, lt := range tables {
		benchExec(t, dst, lt.t.DropForLoad(d))
	}
	restore := withoutTriggers(t, dst, d, tables)
	server0, cpu0 := serverTicks(dstURL), selfCPU()
	start := time.Now()
	if d == dbschema.Postgres {
		copyTables(t, dst, tables)
	} else {
		insertTables(t, dst, tables)
	}
	for _, lt := range tables {
		benchExec(t, dst, lt.t.BuildIndexes(d))
	}
	load = fastestLoad{elapsed: time.Since(start), cpu: selfCPU() - cpu0}
	time.Sleep(200 * time.Millisecond) // see benchExport
	load.server = ticksDuration(serverTicks(dstURL) - server0)
	benchExec(t, dst, restore)
	return load, dst
}

// withoutTriggers takes the triggers off the tables of the load, and
// returns the statements that put them back. The history tables' rows are
// among the rows loaded, as the export's triggers wrote them: triggers
// firing on the load would write each of them a second time.
func withoutTriggers(t *testing.T, db *sql.DB, d dbschema.Dialect, tables []loadTable) (restore []string) {
	t.Helper()
	if d == dbschema.Postgres {
		for _, lt := range tables {
			benchExec(t, db, []string{`ALTER TABLE ` + lt.t.Name + ` DISABLE TRIGGER USER`})
			restore = append(restore, `ALTER TABLE `+lt.t.Name+` ENABLE TRIGGER USER`)
		}
		return restore
	}
	rows, err := db.Query(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger'`)
	if err != nil {
		t.Fatal(err)
	}
	var drop []string
	for rows.Next() {
		var name, create string
		if err := rows.Scan(&name, &create); err != nil {
			t.Fatal(err)
		}
		drop, restore = append(drop, `DROP TRIGGER `+name), append(restore, create)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	benchExec(t, db, drop)
	return restore
}

// fastestLoad is the figures of benchFastestLoad: its time, this
// process's CPU in it (the driver's, and SQLite's own), and the
// PostgreSQL server's.
type fastestLoad struct{ elapsed, cpu, server time.Duration }

// TestBenchFastestLoad: the fastest load holds the rows the export wrote.
func TestBenchFastestLoad(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 5)
		wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url, "--per-user"), exitOK)
		src, _ := openTestDB(t, url)
		_, dst := benchFastestLoad(t, url)
		diffSnapshots(t, "the fastest load", snapshot(t, src), snapshot(t, dst))
		for _, tb := range dbschema.Tables() {
			if strings.HasSuffix(tb.Name, "_history") {
				q := `SELECT COUNT(*) FROM ` + tb.Name
				if got, want := countRows(t, dst, q), countRows(t, src, q); got != want {
					t.Errorf("the fastest load: %s holds %d rows, the export's %d", tb.Name, got, want)
				}
			}
		}
	})
}

func TestAlphabeticalJSON(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"score": 7, "id": "a1", "nested": {"b": 1, "a": [1, 2]}}`: `{"id":"a1","nested":{"b":1,"a":[1,2]},"score":7}`,
		`{"bb": 1, "a": 2}`: `{"a":2,"bb":1}`,
		`[2, 1]`:            `[2, 1]`,
		`"text"`:            `"text"`,
	} {
		if got := alphabeticalJSON(t, in); got != want {
			t.Errorf("alphabeticalJSON(%s) = %s, want %s", in, got, want)
		}
	}
}

func benchExec(t *testing.T, db *sql.DB, stmts []string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
}

// readTable is every row of tb, JSON as text. On PostgreSQL a JSON
// object comes back from jsonb in jsonb's own order of keys, which a load
// of it would not need to sort; the export sends its objects in the order
// of the SDK's fields, which it must. So each object goes back out with
// its keys in alphabetical order (as encoding/json writes a map) and no
// spaces, as the export's own are.
func readTable(t *testing.T, db *sql.DB, d dbschema.Dialect, tb dbschema.Table) [][]any {
	t.Helper()
	var cols []string
	var jsonCols []int
	for i, c := range tb.Columns {
		if c.Type == dbschema.JSON && d == dbschema.Postgres {
			cols = append(cols, c.Name+"::text")
			jsonCols = append(jsonCols, i)
			continue
		}
		cols = append(cols, c.Name)
	}
	rows, err := db.Query(`SELECT ` + strings.Join(cols, ", ") + ` FROM ` + tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		row := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, i := range jsonCols {
			if s, ok := row[i].(string); ok {
				row[i] = alphabeticalJSON(t, s)
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// alphabeticalJSON is the JSON object s with its keys in alphabetical
// order, compact; other JSON as it is.
func alphabeticalJSON(t *testing.T, s string) string {
	var members map[string]json.RawMessage
	if !strings.HasPrefix(s, "{") || json.Unmarshal([]byte(s), &members) != nil {
		return s
	}
	b, err := json.Marshal(members)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// insertTables inserts the rows in one transaction, a statement of about
// 1,000 values at a time, as the engine's SQLite statements take them,
// each statement prepared once, as the engine's are.
func insertTables(t *testing.T, db *sql.DB, tables []loadTable) {
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, lt := range tables {
		n := len(lt.t.Columns)
		per := max(1, 1000/n)
		row := "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
		prepared := map[int]*sql.Stmt{}
		for rows := lt.rows; len(rows) > 0; {
			k := min(per, len(rows))
			stmt := prepared[k]
			if stmt == nil {
				if stmt, err = tx.Prepare(`INSERT INTO ` + lt.t.Name + ` VALUES ` + strings.TrimSuffix(strings.Repeat(row+", ", k), ", ")); err != nil {
					t.Fatal(err)
				}
				prepared[k] = stmt
			}
			args := make([]any, 0, k*n)
			for _, r := range rows[:k] {
				args = append(args, r...)
			}
			if _, err := stmt.Exec(args...); err != nil {
				t.Fatal(err)
			}
			rows = rows[k:]
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// copyTables copies the rows into their tables with COPY, in one
// transaction.
func copyTables(t *testing.T, db *sql.DB, tables []loadTable) {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		c := dc.(*stdlib.Conn).Conn()
		tx, err := c.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		for _, lt := range tables {
			var cols []string
			for _, c := range lt.t.Columns {
				cols = append(cols, c.Name)
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{lt.t.Name}, cols, pgx.CopyFromRows(lt.rows)); err != nil {
				return err
			}
		}
		return tx.Commit(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
}
