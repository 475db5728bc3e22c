package sqldest

import (
	"slices"
	"testing"

	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/edappsrc"
	"github.com/edapp-go/edapp/export/scsrc"
)

// TestKindsColumnsAreTheirTables checks each kind against the schema,
// without a database: the kind has a table, its columns are the table's
// fields in order, one per column but raw and the engine's, and its key,
// date and open fields are among them.
func TestKindsColumnsAreTheirTables(t *testing.T) {
	t.Parallel()
	checkKindsColumns(t, edappsrc.Kinds(), SourceEdApp)
}

// checkKindsColumns checks each of a source's kinds against the schema:
// the kind has a table, its columns are the fields of the table's columns
// that say the source fills them (so a column's Origin is what the export
// does; in column order for EdApp, whose CSV columns follow it), its key,
// date and open fields are among them, and the source's Database takes it.
func checkKindsColumns(t *testing.T, kinds []export.Kind, source string) {
	t.Helper()
	x := newDatabase(nil, nil, SQLite)
	x.source, x.rows.source = source, source
	for _, k := range kinds {
		tb, ok := dbschema.Lookup(k.Name)
		if !ok || len(k.Columns) == 0 {
			t.Errorf("%s: no table in dbschema", k.Name)
			continue
		}
		var want []string
		for _, c := range tb.Columns {
			if c.Name != "raw" && c.Origin&x.rows.origin() != 0 {
				want = append(want, c.Field)
				if snake(c.Field) != c.Name {
					t.Errorf("%s.%s holds field %q", k.Name, c.Name, c.Field)
				}
			}
		}
		got := k.Columns
		if source != SourceEdApp {
			got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s %s: columns %v, the table's fields %v", source, k.Name, k.Columns, want)
		}
		for _, f := range append(slices.Clone(k.KeyFields), k.DateField, k.OpenField) {
			if f != "" && !slices.Contains(k.Columns, f) {
				t.Errorf("%s: field %s is not a column", k.Name, f)
			}
		}
		if _, err := x.rows.table(&k); err != nil {
			t.Error(err)
		}
	}
}

// TestCustomFieldsTableShape checks the columns upsertCustomFields fills,
// in the order it fills them.
func TestCustomFieldsTableShape(t *testing.T) {
	t.Parallel()
	var names []string
	for _, c := range customFieldsTable.Columns {
		names = append(names, c.Name)
	}
	if want := []string{"source", "user_id", "name", "value", "edapp_run", "edapp_digest"}; !slices.Equal(names, want) ||
		!slices.Equal(customFieldsTable.Key, []string{"user_id", "name", "source"}) {
		t.Errorf("user_custom_fields: columns %v, key %v", names, customFieldsTable.Key)
	}
}

// kindNamed is the EdApp kind name, for a test.
func kindNamed(t *testing.T, name string) *export.Kind {
	t.Helper()
	kinds := edappsrc.Kinds()
	i := slices.IndexFunc(kinds, func(k export.Kind) bool { return k.Name == name })
	if i < 0 {
		t.Fatalf("no kind %s", name)
	}
	return &kinds[i]
}

// TestSafetyCultureKindsColumnsAreTheirTables is
// TestKindsColumnsAreTheirTables for SafetyCulture's kinds: the columns
// that say SafetyCulture fills them are exactly those its kinds write.
func TestSafetyCultureKindsColumnsAreTheirTables(t *testing.T) {
	t.Parallel()
	checkKindsColumns(t, scsrc.Kinds(), SourceSafetyCulture)
}
