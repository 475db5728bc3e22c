package sqldest

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/export/dbschema"
)

// A Database writes one source's rows, and touches no other's.

// TestDatabaseLeavesOtherSourcesRows: an EdApp export, a mirror that
// deletes a user included, changes no row of another source: not its
// records, cursors or lock row.
func TestDatabaseLeavesOtherSourcesRows(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, demo := exportFixture(t, 3)
		if err := runDBExport(t, context.Background(), srv, url); err != nil {
			t.Fatal(err)
		}
		db, _ := openTestDB(t, url)
		copyAsSource(t, db, "safetyculture")
		before := sourceSnapshot(t, db, "safetyculture")
		if len(before["users"]) == 0 || len(before["attempts"]) == 0 {
			t.Fatalf("nothing copied: %v", before)
		}
		if err := srv.Client().Users.Delete(context.Background(), demo.UserIDs[2]); err != nil {
			t.Fatal(err)
		}
		if err := runDBExport(t, context.Background(), srv, url); err != nil {
			t.Fatal(err)
		}
		diffSnapshots(t, "the other source's rows", before, sourceSnapshot(t, db, "safetyculture"))
		if got, want := len(sourceSnapshot(t, db, "edapp")["users"]), len(before["users"])-1; got != want {
			t.Errorf("edapp users: %d, want %d (the deleted one gone)", got, want)
		}
	})
}

// copyAsSource copies every row of the export's tables and of its own
// tables from source edapp to source other, with no run on the copies: a
// mirror of edapp that did not scope its delete would delete them.
func copyAsSource(t *testing.T, db *sql.DB, other string) {
	t.Helper()
	var tables []dbschema.Table
	for _, name := range exportTableNames() {
		tb, _ := dbschema.Lookup(name)
		tables = append(tables, tb)
	}
	tables = append(tables, tableAt(t, sourceVersion, "edapp_export_kinds"), tableAt(t, sourceVersion, "edapp_export_lock"))
	for _, tb := range tables {
		var cols, vals []string
		for _, c := range tb.Columns {
			cols = append(cols, c.Name)
			switch c.Name {
			case "source":
				vals = append(vals, "'"+other+"'")
			case "edapp_run":
				vals = append(vals, "NULL")
			default:
				vals = append(vals, c.Name)
			}
		}
		q := `INSERT INTO ` + tb.Name + ` (` + strings.Join(cols, ", ") + `) SELECT ` + strings.Join(vals, ", ") + ` FROM ` + tb.Name + ` WHERE source = 'edapp'`
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
}

// sourceSnapshot is snapshot of one source's rows, and its rows of the
// export's own tables.
func sourceSnapshot(t *testing.T, db *sql.DB, source string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for name, rows := range snapshot(t, db) {
		for _, r := range rows {
			if strings.HasPrefix(r, "source="+source+"|") {
				out[name] = append(out[name], r)
			}
		}
	}
	for table, cols := range map[string][]string{"edapp_export_kinds": {"kind", "cursor", "completed_at"}, "edapp_export_lock": {"holder", "runs"}} {
		q := `SELECT ` + strings.Join(cols, ", ") + ` FROM ` + table + ` WHERE source = '` + source + `'`
		out[q] = textRows(t, db, q, cols)
	}
	return out
}

// sourceVersion is the schema version that gave every table its source.
const sourceVersion = 7

// tableAt is the table name as version v of the migrations left it.
func tableAt(t *testing.T, v int, name string) dbschema.Table {
	t.Helper()
	for _, tb := range dbschema.Migrations()[v-1].Tables() {
		if tb.Name == name {
			return tb
		}
	}
	t.Fatalf("no table %s at version %d", name, v)
	return dbschema.Table{}
}
