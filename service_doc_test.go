package edapp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// apiLine is the line that names the operation a service method calls.
var apiLine = regexp.MustCompile(`(?m)^EdApp API: (GET|POST|PUT|DELETE) /v[12]/\S+`)

// Every exported method of every *...Service type, here and in v1, names
// the operation it calls in one line of its doc comment, as go-github's
// "GitHub API docs" lines do.
func TestEveryServiceMethodNamesItsOperation(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	v1Files, _ := filepath.Glob("v1/*.go")
	methods := 0
	for _, name := range append(files, v1Files...) {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() || !isServiceReceiver(fn) {
				continue
			}
			methods++
			if !apiLine.MatchString(fn.Doc.Text()) {
				t.Errorf("%s: %s has no \"EdApp API: METHOD /path\" line", name, fn.Name.Name)
			}
		}
	}
	if methods < 50 {
		t.Errorf("found %d service methods; the parse missed some", methods)
	}
}

// isServiceReceiver reports whether fn is a method of a *XService.
func isServiceReceiver(fn *ast.FuncDecl) bool {
	if fn.Recv == nil || len(fn.Recv.List) != 1 {
		return false
	}
	star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := star.X.(*ast.Ident)
	return ok && strings.HasSuffix(id.Name, "Service")
}
