package export

import (
	"slices"
	"testing"

	"github.com/edapp-go/edapp/dbschema"
)

// TestSafetyCultureKindsColumnsAreTheirTables checks each SafetyCulture
// kind against the schema, without a database: the kind has a table, its
// columns are the fields of the table's columns that say SafetyCulture
// fills them (so a column's Origin is what the export does), its key, date
// and open fields are among them, and a SafetyCulture Database takes it.
func TestSafetyCultureKindsColumnsAreTheirTables(t *testing.T) {
	t.Parallel()
	for _, k := range SafetyCultureKinds() {
		tb, ok := dbschema.Lookup(k.Name)
		if !ok || len(k.Columns) == 0 {
			t.Errorf("%s: no table in dbschema", k.Name)
			continue
		}
		var want []string
		for _, c := range tb.Columns {
			if c.Name != "raw" && c.Origin&dbschema.FromSafetyCulture != 0 {
				want = append(want, c.Field)
				if snake(c.Field) != c.Name {
					t.Errorf("%s.%s holds field %q", k.Name, c.Name, c.Field)
				}
			}
		}
		if got := slices.Sorted(slices.Values(k.Columns)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Errorf("%s: columns %v, the table's SafetyCulture fields %v", k.Name, k.Columns, want)
		}
		for _, f := range append(slices.Clone(k.KeyFields), k.DateField, k.OpenField) {
			if f != "" && !slices.Contains(k.Columns, f) {
				t.Errorf("%s: field %s is not a column", k.Name, f)
			}
		}
		x := &Database{tables: map[string]*table{}, source: SourceSafetyCulture}
		if _, err := x.table(&k); err != nil {
			t.Error(err)
		}
	}
}

// TestSafetyCultureKindsOverlapAndPerUser checks the rules the
// SafetyCulture kinds share: every incremental one is fetched again from
// SafetyCultureOverlap before its cursor, and the per-user reads run only
// with PerUser.
func TestSafetyCultureKindsOverlapAndPerUser(t *testing.T) {
	t.Parallel()
	perUser := []string{"user_lesson_progress", "user_lesson_progress_events", "user_slide_statistics"}
	for _, k := range SafetyCultureKinds() {
		if k.Incremental && k.Name != "course_progress" && k.overlap() != SafetyCultureOverlap {
			t.Errorf("%s: overlap %v, want %v", k.Name, k.overlap(), SafetyCultureOverlap)
		}
		if k.PerUser != slices.Contains(perUser, k.Name) {
			t.Errorf("%s: PerUser %v", k.Name, k.PerUser)
		}
	}
	got, err := selectKinds(scKinds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range got {
		if k.PerUser {
			t.Errorf("%s runs without PerUser", k.Name)
		}
	}
	if _, err := selectKinds(scKinds, Options{Kinds: []string{"user_slide_statistics"}}); err == nil {
		t.Error("user_slide_statistics asked for without PerUser: no error")
	}
}
