package dbschema

import (
	"slices"
	"strings"
	"testing"
)

var testTable = Table{Name: "t", Key: []string{"id"}, Description: "a test table",
	Columns: []Column{{Name: "id", Type: Text}, {Name: "n", Type: Int, Nullable: true}},
	Indexes: []Index{{Columns: []string{"n"}}, {Columns: []string{"id", "n"}, Deferred: true}}}

func TestStepsSQL(t *testing.T) {
	t.Parallel()
	rebuilt := Table{Name: "t", Key: []string{"source", "id"}, Columns: []Column{
		{Name: "source", Type: Text}, {Name: "id", Type: Text}, {Name: "n", Type: Int, Nullable: true}}}
	for _, tc := range []struct {
		st   step
		d    Dialect
		want string
	}{
		{createTable{testTable}, Postgres, "CREATE TABLE t (\n  id TEXT NOT NULL,\n  n BIGINT,\n  PRIMARY KEY (id)\n)|CREATE INDEX t_n_idx ON t (n)"},
		{addColumn{"t", Column{Name: "at", Type: Time, Nullable: true}}, SQLite, "ALTER TABLE t ADD COLUMN at TEXT"},
		{addColumn{"t", Column{Name: "at", Type: Time, Nullable: true}}, Postgres, "ALTER TABLE t ADD COLUMN at TIMESTAMPTZ"},
		{createIndex{"t", Index{Columns: []string{"n"}}}, SQLite, "CREATE INDEX t_n_idx ON t (n)"},
		{createIndex{"t", Index{Columns: []string{"n"}, Deferred: true}}, SQLite, ""},
		{createIndex{"t", Index{Columns: []string{"id", "n"}, Where: "n IS NULL"}}, Postgres, "CREATE INDEX t_id_n_idx ON t (id, n) WHERE n IS NULL"},
		{dropIndex{"t", []string{"n"}}, Postgres, "DROP INDEX IF EXISTS t_n_idx"},
		{createIndex{"t", Index{Columns: []string{"n"}, Hash: true}}, SQLite, "CREATE INDEX t_n_idx ON t (n)"},
		{postgresOnly{[]step{createIndex{"t", Index{Columns: []string{"n"}, Hash: true}}}}, Postgres, "CREATE INDEX t_n_idx ON t USING hash (n)"},
		{postgresOnly{[]step{createIndex{"t", Index{Columns: []string{"n"}, Hash: true}}}}, SQLite, ""},
		{rebuildTable{Table: rebuilt, Copy: []string{"id", "n"}, Fill: map[string]string{"source": "'edapp'"}}, SQLite,
			"CREATE TABLE t_rebuild (\n  source TEXT NOT NULL,\n  id TEXT NOT NULL,\n  n INTEGER,\n  PRIMARY KEY (source, id)\n)|" +
				"INSERT INTO t_rebuild (source, id, n) SELECT 'edapp', id, n FROM t|DROP TABLE t|ALTER TABLE t_rebuild RENAME TO t"},
	} {
		if got := strings.Join(tc.st.SQL(tc.d), "|"); got != tc.want {
			t.Errorf("%T on %v:\n%s\nwant\n%s", tc.st, tc.d, got, tc.want)
		}
	}
}

func TestTableCreateDeferred(t *testing.T) {
	t.Parallel()
	got := testTable.CreateDeferred(Postgres)
	if want := []string{"CREATE INDEX IF NOT EXISTS t_id_n_idx ON t (id, n)"}; !slices.Equal(got, want) {
		t.Errorf("CreateDeferred = %q, want %q", got, want)
	}
}

func TestTableDropForLoadAndBuildIndexes(t *testing.T) {
	t.Parallel()
	tb := testTable
	tb.Indexes = append(slices.Clone(tb.Indexes), Index{Columns: []string{"id"}, Unique: true}, Index{Columns: []string{"h"}, Hash: true},
		Index{Columns: []string{"p"}, Where: "n IS NULL"})
	for _, tc := range []struct {
		d           Dialect
		drop, build []string
	}{
		{SQLite, []string{"DROP INDEX IF EXISTS t_n_idx", "DROP INDEX IF EXISTS t_h_idx"},
			[]string{"CREATE INDEX IF NOT EXISTS t_n_idx ON t (n)", "CREATE INDEX IF NOT EXISTS t_id_n_idx ON t (id, n)", "CREATE INDEX IF NOT EXISTS t_h_idx ON t (h)"}},
		{Postgres, []string{"DROP INDEX IF EXISTS t_n_idx"},
			[]string{"CREATE INDEX IF NOT EXISTS t_n_idx ON t (n)", "CREATE INDEX IF NOT EXISTS t_id_n_idx ON t (id, n)"}},
	} {
		if got := tb.DropForLoad(tc.d); !slices.Equal(got, tc.drop) {
			t.Errorf("DropForLoad(%v) = %q, want %q (neither the unique, the partial nor the deferred index)", tc.d, got, tc.drop)
		}
		if got := tb.BuildIndexes(tc.d); !slices.Equal(got, tc.build) {
			t.Errorf("BuildIndexes(%v) = %q, want %q", tc.d, got, tc.build)
		}
	}
}

func TestFoldAppliesSteps(t *testing.T) {
	t.Parallel()
	at := Column{Name: "at", Type: Time, Nullable: true}
	tables, err := fold([]Migration{
		{Version: 1, steps: []step{createTable{testTable}}},
		{Version: 2, steps: []step{addColumn{"t", at}, dropIndex{"t", []string{"n"}}, createIndex{"t", Index{Columns: []string{"at"}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := tables[0]
	if len(tables) != 1 || len(got.Columns) != 3 || got.Columns[2] != at {
		t.Fatalf("Fold = %+v", tables)
	}
	if len(got.Indexes) != 2 || !got.Indexes[0].Deferred || !slices.Equal(got.Indexes[1].Columns, []string{"at"}) {
		t.Errorf("indexes: %+v", got.Indexes)
	}
	if len(testTable.Columns) != 2 {
		t.Error("Fold changed the table of a step")
	}
}

func TestFoldRefusesStepsThatDoNotFit(t *testing.T) {
	t.Parallel()
	nullableKey := testTable.clone()
	nullableKey.Columns[0].Nullable = true
	for name, steps := range map[string][]step{
		"table twice":        {createTable{testTable}, createTable{testTable}},
		"nullable key":       {createTable{nullableKey}},
		"no such table":      {addColumn{"x", Column{Name: "a", Nullable: true}}},
		"not null column":    {createTable{testTable}, addColumn{"t", Column{Name: "a"}}},
		"column twice":       {createTable{testTable}, addColumn{"t", Column{Name: "n", Nullable: true}}},
		"index on nothing":   {createTable{testTable}, createIndex{"t", Index{Columns: []string{"zz"}}}},
		"drop missing index": {createTable{testTable}, dropIndex{"t", []string{"zz"}}},
		"rebuild copies what is not there": {createTable{testTable},
			rebuildTable{Table: testTable, Copy: []string{"id", "zz"}}},
	} {
		if _, err := fold([]Migration{{Version: 1, steps: steps}}); err == nil {
			t.Errorf("%s: Fold accepted it", name)
		}
	}
}
