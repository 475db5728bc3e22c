package edapp_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The packages whose public API the shape rules cover: the two clients,
// v1, the webhook handler and the user sync. The fakes and the export
// engine have options of their own kind.
var shapePackages = []string{".", "safetyculture", "v1", "webhook", "usersync"}

// sharedNames are the types the root declares once for every client of the
// module: no other package declares its own, or wraps the root's options
// in options of its own.
var sharedNames = []string{"Secret", "Option", "RequestOption", "Response", "APIError", "Page", "ListOptions"}

// shapeProblems applies the API-shape rules to pkgs (import path's last
// element, or "." for the root, to its files) and returns what breaks them.
func shapeProblems(pkgs map[string][]*ast.File) []string {
	var out []string
	for name, files := range pkgs {
		for _, f := range files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.GenDecl:
					out = append(out, sharedTypeProblems(name, d)...)
				case *ast.FuncDecl:
					out = append(out, funcShapeProblems(name, d)...)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// sharedTypeProblems: a package other than the root that declares a type
// named as a shared one.
func sharedTypeProblems(pkg string, d *ast.GenDecl) []string {
	if pkg == "." || d.Tok != token.TYPE {
		return nil
	}
	var out []string
	for _, s := range d.Specs {
		name := s.(*ast.TypeSpec).Name.Name
		for _, shared := range sharedNames {
			if name != shared {
				continue
			}
			if name == "Option" && !clientPackage(pkg) {
				continue // a handler's or a sync's options configure no client
			}
			out = append(out, pkg+": declares a second "+name+"; use edapp."+name)
		}
	}
	return out
}

// clientPackage reports whether pkg makes API clients, which take the
// root's options.
func clientPackage(pkg string) bool { return pkg == "safetyculture" }

// funcShapeProblems: an exported function's per-call options are named
// reqOpts, a Create's or Update's params are an XCreateParams or an
// XUpdateParams, and a client constructor takes edapp.Option.
func funcShapeProblems(pkg string, fn *ast.FuncDecl) []string {
	if !fn.Name.IsExported() {
		return nil
	}
	where := pkg + ": " + fn.Name.Name
	var out []string
	for _, field := range fn.Type.Params.List {
		typ := typeName(field.Type)
		for _, n := range field.Names {
			switch {
			case typ == "...RequestOption" && n.Name != "reqOpts":
				out = append(out, where+": per-call options named "+n.Name+", not reqOpts")
			case n.Name == "params" && (fn.Name.Name == "Create" || fn.Name.Name == "Update") &&
				!strings.HasSuffix(typ, fn.Name.Name+"Params"):
				out = append(out, where+": params of type "+typ+", not X"+fn.Name.Name+"Params")
			case strings.HasPrefix(fn.Name.Name, "NewClient") && strings.HasPrefix(typ, "...") && !rootOption(pkg, field.Type):
				out = append(out, where+": takes "+typ+", not edapp.Option")
			}
		}
	}
	return out
}

// rootOption reports whether e is the root's ...Option, as package pkg
// names it.
func rootOption(pkg string, e ast.Expr) bool {
	el, ok := e.(*ast.Ellipsis)
	if !ok {
		return false
	}
	if pkg == "." {
		id, ok := el.Elt.(*ast.Ident)
		return ok && id.Name == "Option"
	}
	sel, ok := el.Elt.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "edapp" && sel.Sel.Name == "Option"
}

// typeName names a parameter's type without its package: "...RequestOption",
// "UserCreateParams"; "" for a type with no name.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ellipsis:
		return "..." + typeName(e.Elt)
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.StarExpr:
		return typeName(e.X)
	}
	return ""
}

// parsePackages parses the non-test files of each directory.
func parsePackages(t *testing.T, dirs []string) map[string][]*ast.File {
	t.Helper()
	pkgs := make(map[string][]*ast.File)
	for _, dir := range dirs {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			pkgs[dir] = append(pkgs[dir], f)
		}
	}
	return pkgs
}

// TestAPIShape: both clients speak one dialect. No package declares a
// second Secret, Option (for a client), RequestOption, Response, APIError,
// Page or ListOptions; every exported function's per-call options are
// named reqOpts; Create and Update take an XCreateParams and an
// XUpdateParams; a client constructor takes edapp.Option.
func TestAPIShape(t *testing.T) {
	t.Parallel()
	pkgs := parsePackages(t, shapePackages)
	if len(pkgs) != len(shapePackages) {
		t.Fatalf("parsed %d packages of %d", len(pkgs), len(shapePackages))
	}
	for _, p := range shapeProblems(pkgs) {
		t.Error(p)
	}
}

// TestAPIShapeFailsOnASecondSecret: the rules catch what they are for,
// planted in a package of their own.
func TestAPIShapeFailsOnASecondSecret(t *testing.T) {
	t.Parallel()
	planted := `package safetyculture

import "github.com/edapp-go/edapp"

// Secret is a second secret type, as safetyculture once had.
type Secret struct{ value string }

type Option func(*config)

type WebhookParams struct{ URL string }

// ListOptions is a second list-options type, as safetyculture once had.
type ListOptions struct{ Page, PageSize int }

func NewClient(token string, opts ...Option) (*Client, error) { return nil, nil }

func (s *WebhooksService) Create(ctx context.Context, params WebhookParams, ropts ...edapp.RequestOption) error {
	return nil
}
`
	f, err := parser.ParseFile(token.NewFileSet(), "planted.go", planted, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := shapeProblems(map[string][]*ast.File{"safetyculture": {f}})
	want := []string{
		"safetyculture: Create: params of type WebhookParams, not XCreateParams",
		"safetyculture: Create: per-call options named ropts, not reqOpts",
		"safetyculture: NewClient: takes ...Option, not edapp.Option",
		"safetyculture: declares a second ListOptions; use edapp.ListOptions",
		"safetyculture: declares a second Option; use edapp.Option",
		"safetyculture: declares a second Secret; use edapp.Secret",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems found in the planted package:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
