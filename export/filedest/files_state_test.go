package filedest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/export"
)

// TestCleanKind: a kind's beginning removes its temporary files and its
// parts the state does not list, by the kind's name alone, and leaves
// the recorded parts, other kinds' files and files that are not the
// export's.
func TestCleanKind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := []string{
		".users.csv.123.tmp", ".mine.tmp", ".groups.csv.9.tmp", "users.csv",
		"attempts/part-000001.csv", "attempts/.part-000001.keys", "attempts/part-000002.csv",
		"attempts/.part-000002.csv.7.tmp", "attempts/notes.txt",
	}
	for _, name := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := cleanKind(dir, &export.Kind{Name: "users"}, nil); err != nil {
		t.Fatal(err)
	}
	recorded := []partInfo{{File: "attempts/part-000001.csv", Keys: "attempts/.part-000001.keys"}}
	if err := cleanKind(dir, &export.Kind{Name: "attempts", Incremental: true}, recorded); err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, name := range files {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); err == nil {
			left = append(left, name)
		}
	}
	want := []string{".mine.tmp", ".groups.csv.9.tmp", "users.csv", "attempts/part-000001.csv", "attempts/.part-000001.keys", "attempts/notes.txt"}
	if !slices.Equal(left, want) {
		t.Errorf("left %q, want %q", left, want)
	}
}

// TestPackageLinksNoDatabaseSQL: the files destination links no
// database/sql, whatever the module's SQL destinations do.
func TestPackageLinksNoDatabaseSQL(t *testing.T) {
	t.Parallel()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("no go command to list the package's dependencies: %v", err)
	}
	out, err := exec.Command(goCmd, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if deps := strings.Fields(string(out)); slices.Contains(deps, "database/sql") {
		t.Errorf("filedest depends on database/sql: %q", deps)
	}
}
