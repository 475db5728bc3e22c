package export

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// engineMayUse is what the engine may use of the SDK: its values and
// constants, never a client. Sources (edappsrc, scsrc) hold the clients.
var engineMayUse = []string{"ErrInvalidInput", "Time", "RawFields", "DroppedRecord", "MaxPageSize", "DefaultPageConcurrency"}

// TestEngineHoldsNoClient: the engine's own files import no
// safetyculture, and use of the root package only engineMayUse: a source
// is a value the caller passes to Run.
func TestEngineHoldsNoClient(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		sdk := checkEngineImports(t, name, f)
		if sdk == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == sdk && !slices.Contains(engineMayUse, sel.Sel.Name) {
					t.Errorf("%s uses %s.%s: the engine holds no client", name, sdk, sel.Sel.Name)
				}
			}
			return true
		})
	}
}

// checkEngineImports reports an import of a service's client package, and
// returns the name f gives the root package ("" when it does not import it).
func checkEngineImports(t *testing.T, name string, f *ast.File) (sdk string) {
	t.Helper()
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		switch {
		case strings.HasPrefix(path, "github.com/edapp-go/edapp/safetyculture"):
			t.Errorf("%s imports %s", name, path)
		case path == "github.com/edapp-go/edapp":
			sdk = "edapp"
			if imp.Name != nil {
				sdk = imp.Name.Name
			}
		}
	}
	return sdk
}
