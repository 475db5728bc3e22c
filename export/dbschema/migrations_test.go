package dbschema

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "write the golden files of new migrations (never a released one's) and docs/schema.md")

// goldenName is the file holding migration m's SQL in d.
func goldenName(m Migration, d Dialect) string {
	return filepath.Join("testdata", "migrations", fmt.Sprintf("%04d_%s.%s.sql", m.Version, strings.ReplaceAll(m.Name, " ", "_"), d))
}

// goldenText is how a golden file holds statements.
func goldenText(stmts []string) string {
	if len(stmts) == 0 {
		return "-- nothing to do in this dialect\n"
	}
	return strings.Join(stmts, ";\n\n") + ";\n"
}

// TestMigrationSQLMatchesGoldenFiles freezes the released migrations: each
// version renders, per dialect, exactly the SQL of its golden file.
// go test -run TestMigrationSQLMatchesGoldenFiles ./export/dbschema/ -update
// writes the files of a new migration, and refuses to change one that
// exists (writeGolden).
func TestMigrationSQLMatchesGoldenFiles(t *testing.T) {
	t.Parallel()
	var want []string
	for _, m := range Migrations() {
		for _, d := range []Dialect{SQLite, Postgres} {
			name, got := goldenName(m, d), goldenText(m.SQL(d))
			want = append(want, filepath.Base(name))
			if *update {
				if err := writeGolden(name, got); err != nil {
					t.Error(err)
				}
				continue
			}
			b, err := os.ReadFile(name)
			if err != nil {
				t.Errorf("migration %d: %v (run with -update for a new migration)", m.Version, err)
				continue
			}
			if string(b) != got {
				t.Errorf("migration %d on %s renders other SQL than %s: a released migration never changes", m.Version, d, name)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "migrations", "*.sql"))
	for _, f := range files {
		if !slices.Contains(want, filepath.Base(f)) {
			t.Errorf("%s belongs to no migration", f)
		}
	}
}

// errReleased refuses to rewrite a golden file: it holds a released
// migration, which never changes.
var errReleased = errors.New("holds a released migration, which never changes: add a new migration instead")

// writeGolden writes the golden file name with text when it does not
// exist yet (a new migration); an existing file with other text is
// errReleased, and is left as it is.
func writeGolden(name, text string) error {
	b, err := os.ReadFile(name)
	switch {
	case err == nil && string(b) == text:
		return nil
	case err == nil:
		return fmt.Errorf("%s %w", name, errReleased)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return os.WriteFile(name, []byte(text), 0o644)
}

// TestWriteGoldenRefusesReleasedFiles: -update writes the golden file of
// a new migration, and refuses to change the file of a released one.
func TestWriteGoldenRefusesReleasedFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := filepath.Join(dir, "0020_new.sqlite.sql")
	if err := writeGolden(name, "CREATE TABLE t (id TEXT);\n"); err != nil {
		t.Fatalf("a new migration's file: %v", err)
	}
	if err := writeGolden(name, "CREATE TABLE t (id TEXT);\n"); err != nil {
		t.Errorf("the same text again: %v", err)
	}
	err := writeGolden(name, "CREATE TABLE t (id TEXT, n INTEGER);\n")
	if !errors.Is(err, errReleased) {
		t.Errorf("a change to an existing file: %v, want errReleased", err)
	}
	if b, _ := os.ReadFile(name); string(b) != "CREATE TABLE t (id TEXT);\n" {
		t.Errorf("the refused file now holds %q", b)
	}
}

func TestMigrationsVersionsAreConsecutive(t *testing.T) {
	t.Parallel()
	for i, m := range Migrations() {
		if m.Version != i+1 || m.Name == "" || len(m.steps) == 0 {
			t.Errorf("migration %d: version %d, name %q, %d steps", i+1, m.Version, m.Name, len(m.steps))
		}
	}
	if latest() != len(migrations) {
		t.Errorf("latest() = %d", latest())
	}
}

// TestTablesDescribeEveryColumn checks the data dictionary: every table
// and column has a one-line description, a type and an origin.
func TestTablesDescribeEveryColumn(t *testing.T) {
	t.Parallel()
	for _, tb := range Tables() {
		if tb.Description == "" || strings.Contains(tb.Description, "\n") {
			t.Errorf("%s: description %q", tb.Name, tb.Description)
		}
		for _, c := range tb.Columns {
			if c.Description == "" || strings.Contains(c.Description, "\n") || c.Type.String() == "" || c.Origin == 0 {
				t.Errorf("%s.%s: %+v", tb.Name, c.Name, c)
			}
			if c.Field != "" && snake(c.Field) != c.Name && tb.Name != "events" {
				t.Errorf("%s.%s holds field %s", tb.Name, c.Name, c.Field)
			}
		}
	}
}

// snake is a JSON field name in snake_case, as the export names columns.
func snake(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func TestLookup(t *testing.T) {
	t.Parallel()
	users, ok := Lookup("users")
	if !ok || !slices.Equal(users.Key, []string{"id", "source"}) || users.Fields()[0] != "id" {
		t.Fatalf("Lookup(users) = %+v, %v", users, ok)
	}
	users.Columns[0].Name = "changed"
	if again, _ := Lookup("users"); again.Columns[0].Name != "source" {
		t.Error("Lookup returns the package's own slices")
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup(nope) found a table")
	}
}

// TestTextIndexesAreBTreeButTheInbox: since version 12, every index on
// one text column is a B-tree but those of the inbox's events table, which
// stay hash indexes (the export bounds what the B-trees hold: dbwrite.MaxIndexedBytes).
func TestTextIndexesAreBTreeButTheInbox(t *testing.T) {
	t.Parallel()
	for _, tb := range Tables() {
		for _, idx := range tb.Indexes {
			c, _ := tb.Column(idx.Columns[0])
			if len(idx.Columns) != 1 || c.Type != Text {
				continue
			}
			if want := tb.Name == "events"; idx.Hash != want {
				t.Errorf("%s: the index on %s: hash %v, want %v", tb.Name, c.Name, idx.Hash, want)
			}
		}
	}
}

// TestMaterialisedMigrationsAsComputed: migrations 7 and 13, once
// computed from the versions before them, are written out as literal
// steps; these are the steps the computation gave.
func TestMaterialisedMigrationsAsComputed(t *testing.T) {
	t.Parallel()
	before, err := fold(migrations[:6])
	if err != nil {
		t.Fatal(err)
	}
	var source []step
	for _, name := range []string{"users", "user_custom_fields", "groups", "group_members", "collections", "collection_courses", "courses",
		"lessons", "course_statistics", "lesson_statistics", "survey_questions", "attempts", "course_progress",
		"lesson_progress_events", "survey_answers", "user_lesson_progress", "user_lesson_progress_events", "group_children"} {
		old := before[slices.IndexFunc(before, func(t Table) bool { return t.Name == name })]
		t := old.clone()
		t.Columns = slices.Concat([]Column{sourceColumn}, t.Columns)
		t.Key = append(t.Key, "source")
		source = append(source, rebuildTable{Table: t, Copy: columnNames(old), Fill: edappSource})
	}
	if got := migrations[6].steps[:len(source)]; !reflect.DeepEqual(got, source) {
		t.Error("migration 7's rebuilt tables are not versions 1-6's with source")
	}
	before, err = fold(migrations[:12])
	if err != nil {
		t.Fatal(err)
	}
	seen := []step{createTable{edappExportSeenTable}}
	for _, tb := range before {
		if _, ok := tb.Column("edapp_run"); ok {
			seen = append(seen, addColumn{tb.Name, digestColumn})
		}
	}
	if !reflect.DeepEqual(migrations[12].steps, seen) {
		t.Error("migration 13 does not add edapp_digest to exactly the tables with edapp_run at version 12")
	}
}
