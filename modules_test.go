package edapp

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// rootModulePath is the root module's path, the prefix of every module's.
const rootModulePath = "github.com/edapp-go/edapp"

// TestNestedModulesImportNoOtherModulesInternal: redislimit, otel, export
// and the command are modules of their own, tagged apart from the root, so
// they may use only another module's public API, in their tests too: an
// internal change in the root (or in export) must not break a released
// module, nor its tests run from the module's own download.
func TestNestedModulesImportNoOtherModulesInternal(t *testing.T) {
	t.Parallel()
	nested := nestedModules(t)
	if len(nested) < 4 {
		t.Fatalf("nested modules %q: want redislimit, otel, export and cmd/edapp at least", nested)
	}
	for _, dir := range nested {
		own := rootModulePath + "/" + filepath.ToSlash(dir) + "/"
		for _, name := range goFiles(t, dir) {
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if strings.HasPrefix(path, rootModulePath+"/") && strings.Contains(path+"/", "/internal/") && !strings.HasPrefix(path, own) {
					t.Errorf("%s imports %s", name, path)
				}
			}
		}
	}
}

// testOnlyPackages are test helpers: a test may import them, a program's
// code never, so that no binary links their servers and drivers.
var testOnlyPackages = []string{rootModulePath + "/export/dbtest"}

// TestTestOnlyPackagesImportedByTestsOnly: no non-test file of any
// module imports a package of testOnlyPackages (but the package's own).
func TestTestOnlyPackagesImportedByTestsOnly(t *testing.T) {
	t.Parallel()
	for _, name := range goFiles(t, ".") {
		if strings.HasSuffix(name, "_test.go") || strings.Contains(filepath.ToSlash(name), "/testdata/") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		own := rootModulePath + "/" + filepath.ToSlash(filepath.Dir(name))
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if slices.Contains(testOnlyPackages, path) && path != own {
				t.Errorf("%s imports %s, a package for tests only", name, path)
			}
		}
	}
}

// TestRootModuleBuildsNoDatabaseSQL: the SDK is an HTTP client; the SQL
// code (the export's destinations, the schema, the inbox's store) is the
// export module's, so nothing the root module builds, tests aside, links
// database/sql.
func TestRootModuleBuildsNoDatabaseSQL(t *testing.T) {
	t.Parallel()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("no go command to list the packages' dependencies: %v", err)
	}
	out, err := exec.Command(goCmd, "list", "-deps", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list -deps ./...: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		if pkg == "database/sql" {
			t.Error("a package the root module builds depends on database/sql")
		}
		if slices.Contains(strings.Fields(imports), "database/sql") {
			t.Errorf("%s imports database/sql", pkg)
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
