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
		step Step
		d    Dialect
		want string
	}{
		{CreateTable{testTable}, Postgres, "CREATE TABLE t (\n  id TEXT NOT NULL,\n  n BIGINT,\n  PRIMARY KEY (id)\n)|CREATE INDEX t_n_idx ON t (n)"},
		{AddColumn{"t", Column{Name: "at", Type: Time, Nullable: true}}, SQLite, "ALTER TABLE t ADD COLUMN at TEXT"},
		{AddColumn{"t", Column{Name: "at", Type: Time, Nullable: true}}, Postgres, "ALTER TABLE t ADD COLUMN at TIMESTAMPTZ"},
		{CreateIndex{"t", Index{Columns: []string{"n"}}}, SQLite, "CREATE INDEX t_n_idx ON t (n)"},
		{CreateIndex{"t", Index{Columns: []string{"n"}, Deferred: true}}, SQLite, ""},
		{CreateIndex{"t", Index{Columns: []string{"id", "n"}, Where: "n IS NULL"}}, Postgres, "CREATE INDEX t_id_n_idx ON t (id, n) WHERE n IS NULL"},
		{DropIndex{"t", []string{"n"}}, Postgres, "DROP INDEX IF EXISTS t_n_idx"},
		{CreateIndex{"t", Index{Columns: []string{"n"}, Hash: true}}, SQLite, "CREATE INDEX t_n_idx ON t (n)"},
		{PostgresOnly{[]Step{CreateIndex{"t", Index{Columns: []string{"n"}, Hash: true}}}}, Postgres, "CREATE INDEX t_n_idx ON t USING hash (n)"},
		{PostgresOnly{[]Step{CreateIndex{"t", Index{Columns: []string{"n"}, Hash: true}}}}, SQLite, ""},
		{RebuildTable{Table: rebuilt, Copy: []string{"id", "n"}, Fill: map[string]string{"source": "'edapp'"}}, SQLite,
			"CREATE TABLE t_rebuild (\n  source TEXT NOT NULL,\n  id TEXT NOT NULL,\n  n INTEGER,\n  PRIMARY KEY (source, id)\n)|" +
				"INSERT INTO t_rebuild (source, id, n) SELECT 'edapp', id, n FROM t|DROP TABLE t|ALTER TABLE t_rebuild RENAME TO t"},
	} {
		if got := strings.Join(tc.step.SQL(tc.d), "|"); got != tc.want {
			t.Errorf("%T on %v:\n%s\nwant\n%s", tc.step, tc.d, got, tc.want)
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
	tables, err := Fold([]Migration{
		{Version: 1, Steps: []Step{CreateTable{testTable}}},
		{Version: 2, Steps: []Step{AddColumn{"t", at}, DropIndex{"t", []string{"n"}}, CreateIndex{"t", Index{Columns: []string{"at"}}}}},
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
	for name, steps := range map[string][]Step{
		"table twice":        {CreateTable{testTable}, CreateTable{testTable}},
		"nullable key":       {CreateTable{nullableKey}},
		"no such table":      {AddColumn{"x", Column{Name: "a", Nullable: true}}},
		"not null column":    {CreateTable{testTable}, AddColumn{"t", Column{Name: "a"}}},
		"column twice":       {CreateTable{testTable}, AddColumn{"t", Column{Name: "n", Nullable: true}}},
		"index on nothing":   {CreateTable{testTable}, CreateIndex{"t", Index{Columns: []string{"zz"}}}},
		"drop missing index": {CreateTable{testTable}, DropIndex{"t", []string{"zz"}}},
		"rebuild copies what is not there": {CreateTable{testTable},
			RebuildTable{Table: testTable, Copy: []string{"id", "zz"}}},
	} {
		if _, err := Fold([]Migration{{Version: 1, Steps: steps}}); err == nil {
			t.Errorf("%s: Fold accepted it", name)
		}
	}
}
