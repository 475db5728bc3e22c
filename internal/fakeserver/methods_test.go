package fakeserver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeDirs are the fakes' packages, from this one.
var fakeDirs = []string{".", "../wiregen", "../../edapptest", "../../edapptest/fakedata", "../../safetyculture/sctest"}

// TestNoFakeTypeOverThirtyMethods: each type of the fakes keeps to one
// role, at most 30 methods declared on it.
func TestNoFakeTypeOverThirtyMethods(t *testing.T) {
	t.Parallel()
	for _, dir := range fakeDirs {
		for name, n := range methodCounts(t, dir) {
			if n > 30 {
				t.Errorf("%s: %s has %d methods, want at most 30", dir, name, n)
			}
		}
	}
}

// methodCounts counts the methods declared on each type of a package's
// non-test files.
func methodCounts(t *testing.T, dir string) map[string]int {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".go") || strings.HasSuffix(f.Name(), "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, f.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil {
				counts[receiverName(fn.Recv.List[0].Type)]++
			}
		}
	}
	return counts
}

func receiverName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverName(x.X)
	case *ast.IndexExpr:
		return receiverName(x.X)
	case *ast.IndexListExpr:
		return receiverName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}
