package dbschema

import (
	"slices"
	"strings"
	"testing"
)

// TestHistoryTablesHaveTheirTablesColumns folds the migrations up to each
// version from the history tables' on: every T_history has T's columns
// (name, type, nullability, in order) then valid_from and valid_to, and
// T's key then valid_from; so a later change to T's columns fails here
// until its twin on T_history is a step of the same migration.
func TestHistoryTablesHaveTheirTablesColumns(t *testing.T) {
	t.Parallel()
	ms := Migrations()
	for i, m := range ms {
		if m.Version < historyVersion {
			continue
		}
		tables, err := fold(ms[:i+1])
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]Table{}
		for _, tb := range tables {
			byName[tb.Name] = tb
		}
		n := 0
		for _, h := range tables {
			name, ok := strings.CutSuffix(h.Name, "_history")
			if !ok {
				continue
			}
			n++
			tb := byName[name]
			want := append(slices.Clone(tb.Columns), validFrom, validTo)
			if !slices.EqualFunc(h.Columns, want, func(a, b Column) bool {
				return a.Name == b.Name && a.Type == b.Type && a.Nullable == b.Nullable
			}) {
				t.Errorf("version %d: %s's columns are not %s's and the two", m.Version, h.Name, name)
			}
			if !slices.Equal(h.Key, append(slices.Clone(tb.Key), "valid_from")) {
				t.Errorf("version %d: %s's key %v, %s's %v", m.Version, h.Name, h.Key, name, tb.Key)
			}
		}
		if n != 17 {
			t.Errorf("version %d: %d history tables", m.Version, n)
		}
	}
}

// TestHistoryTriggersNameEveryColumn: each trigger writes every column of
// its history table but the two times, and a version's key is its table's.
func TestHistoryTriggersNameEveryColumn(t *testing.T) {
	t.Parallel()
	for _, h := range historyTables {
		for _, d := range []Dialect{SQLite, Postgres} {
			sql := strings.Join(historyTrigger{h}.SQL(d), "\n")
			for _, c := range h.Columns {
				if c.Name != "valid_from" && c.Name != "valid_to" && !strings.Contains(sql, "NEW."+c.Name) {
					t.Errorf("%s (%v): the trigger leaves out %s", h.Name, d, c.Name)
				}
			}
		}
	}
}

// TestUncountedHistoryTriggerCountsNothing: from migration 21 the
// triggers write no count into edapp_export_kinds, and Repair's
// historyTriggerSQL makes them as migration 21 does, with migration 23's
// function on PostgreSQL.
func TestUncountedHistoryTriggerCountsNothing(t *testing.T) {
	t.Parallel()
	for _, h := range historyTables {
		for _, d := range []Dialect{SQLite, Postgres} {
			counted := strings.Join(historyTrigger{h}.SQL(d), "\n")
			replaced := uncountedHistoryTrigger{h}.SQL(d)
			repaired := historyTriggerSQL(historyTableOf(h.Name), d)
			if !strings.Contains(counted, "versions_opened") {
				t.Errorf("%s (%v): migration 20's trigger counts nothing", h.Name, d)
			}
			if sql := strings.Join(replaced, "\n"); strings.Contains(sql, "versions_") || strings.Contains(sql, "UPDATE edapp_export_kinds") {
				t.Errorf("%s (%v): migration 21's trigger still counts", h.Name, d)
			}
			want := insertOpensHistoryOnceTrigger{h}.SQL(d) // the function; the trigger that calls it follows
			if d == SQLite {
				want = replaced[2:] // but the DROP TRIGGERs
			}
			if !slices.Equal(repaired[:len(want)], want) || len(repaired) != len(historyTrigger{h}.SQL(d)) {
				t.Errorf("%s (%v): Repair makes another trigger than migrations 21 and 23's", h.Name, d)
			}
		}
	}
}

// TestInsertOpensHistoryTriggerKeepsMigration21s: migration 22's function
// runs migration 21's statements, unchanged, for every write but the insert
// of a key with no open version, whose one INSERT names every column; on
// SQLite it changes nothing. Migration 23's does too, its INSERT being
// migration 21's own with the walk's time read in it.
func TestInsertOpensHistoryTriggerKeepsMigration21s(t *testing.T) {
	t.Parallel()
	for _, h := range historyTables {
		if sql := append((insertOpensHistoryTrigger{h}).SQL(SQLite), insertOpensHistoryOnceTrigger{h}.SQL(SQLite)...); len(sql) != 0 {
			t.Errorf("%s: migrations 22 and 23 on SQLite: %q", h.Name, sql)
		}
		p := uncountedHistoryTrigger{h}.parts(Postgres)
		walk, closeChanged, refresh, openNew := p.postgresStatements()
		once := strings.Join(insertOpensHistoryOnceTrigger{h}.SQL(Postgres), "\n")
		first := strings.Replace(openNew, "hist_walk", "(SELECT walk_time FROM edapp_export_kinds WHERE source = NEW.source AND kind = '"+p.kind+"')", 1)
		if !strings.Contains(once, "IF TG_OP = 'INSERT' THEN\n    "+first+"\n    IF FOUND THEN") {
			t.Errorf("%s: migration 23's first INSERT is not migration 21's", h.Name)
		}
		got := strings.Join(insertOpensHistoryTrigger{h}.SQL(Postgres), "\n")
		for _, stmt := range []string{walk, closeChanged, refresh, openNew} {
			if !strings.Contains(got, stmt) || !strings.Contains(once, stmt) {
				t.Errorf("%s: migration 22 or 23 leaves out migration 21's %q", h.Name, stmt)
			}
		}
		short, _, _ := strings.Cut(got[strings.Index(got, "VALUES ("):], ");")
		for _, c := range h.Columns {
			if c.Name != "valid_from" && c.Name != "valid_to" && !strings.Contains(short, "NEW."+c.Name+",") {
				t.Errorf("%s: migration 22's INSERT leaves out %s", h.Name, c.Name)
			}
		}
	}
}
