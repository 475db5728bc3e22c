package edapp

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNestedModulesImportNoRootInternal: redislimit, otel and the command
// are modules of their own, tagged apart from the root, so they may use
// only the root's public API, in their tests too: an internal change in the
// root must not break a released module, nor its tests run from the
// module's own download.
func TestNestedModulesImportNoRootInternal(t *testing.T) {
	t.Parallel()
	nested := nestedModules(t)
	if len(nested) < 3 {
		t.Fatalf("nested modules %q: want redislimit, otel and cmd/edapp at least", nested)
	}
	for _, dir := range nested {
		for _, name := range goFiles(t, dir) {
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if strings.HasPrefix(path, "github.com/edapp-go/edapp/internal/") {
					t.Errorf("%s imports %s", name, path)
				}
			}
		}
	}
}

// nestedModules lists the directories below the root that hold a go.mod.
func nestedModules(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata"):
			return filepath.SkipDir
		case !d.IsDir() && d.Name() == "go.mod" && path != "go.mod":
			dirs = append(dirs, filepath.Dir(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// goFiles lists the Go files under dir, tests included.
func goFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return files
}
