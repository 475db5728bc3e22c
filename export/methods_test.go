package export

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxMethods is the most methods a type of the module may have: a type
// with more plays more than one role.
const maxMethods = 30

// TestNoTypeHasMoreThan30Methods counts, with go/ast, the methods
// declared on each type, exported or not, in every package of the module
// (test files included).
func TestNoTypeHasMoreThan30Methods(t *testing.T) {
	t.Parallel()
	counts := map[string]int{} // "dir.Type" -> methods
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv != nil && len(fn.Recv.List) == 1 {
				counts[filepath.Dir(path)+"."+receiverType(fn.Recv.List[0].Type)]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) == 0 {
		t.Fatal("no methods found")
	}
	for typ, n := range counts {
		if n > maxMethods {
			t.Errorf("%s has %d methods, want at most %d", typ, n, maxMethods)
		}
	}
}

// receiverType is the name of a receiver's type: T of T, *T, T[P] or *T[P].
func receiverType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverType(e.X)
	case *ast.IndexExpr:
		return receiverType(e.X)
	case *ast.IndexListExpr:
		return receiverType(e.X)
	case *ast.Ident:
		return e.Name
	}
	return "?"
}
