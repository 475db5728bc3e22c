package edapp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// godocWords are unexported identifiers that are also English words a doc
// comment uses as such ("the service's answer", "see page 2"): the test
// does not take them for the identifier.
var godocWords = []string{
	"answer", "attempt", "body", "call", "client", "config", "course", "delivery",
	"event", "feed", "field", "file", "group", "kind", "learner", "lesson", "limit", "one",
	"page", "published", "record", "request", "response", "route", "row", "run",
	"server", "service", "site", "source", "state", "statement", "table", "token",
	"user", "walk", "window",
}

// godocPackage is one directory's package: its files' doc comments that
// godoc shows, and the unexported names it declares.
type godocPackage struct {
	dir        string
	docs       []godocComment
	unexported map[string]bool
}

// godocComment is one doc comment, where it is, and the names of its
// function's parameters and results, which the comment may use.
type godocComment struct {
	pos    token.Position
	text   string
	params map[string]bool
}

// TestGodocNamesNoUnexportedIdentifier reads the exported godoc of every
// package of every module of the repository (the package doc, and the doc
// of each exported declaration, method, field and interface method) and
// fails on what a reader of pkg.go.dev cannot follow: a doc link [x], "see
// x", "x's" or "x()" where x is an unexported identifier of the package,
// and "this file" or "the README".
func TestGodocNamesNoUnexportedIdentifier(t *testing.T) {
	t.Parallel()
	pkgs := godocPackages(t, ".")
	for _, module := range []string{".", "otel", "redislimit", "export", "cmd/edapp"} {
		if !slices.ContainsFunc(pkgs, func(p *godocPackage) bool { return p.dir == filepath.FromSlash(module) }) {
			t.Errorf("the walk missed the module at %s", module)
		}
	}
	for _, p := range pkgs {
		for _, c := range p.docs {
			for _, problem := range godocProblems(c.text, p.unexported, c.params) {
				t.Errorf("%s: %s", c.pos, problem)
			}
		}
	}
}

// godocPackages parses the non-test Go files under root, a package per
// directory, skipping testdata and hidden directories.
func godocPackages(t *testing.T, root string) []*godocPackage {
	t.Helper()
	byDir := map[string]*godocPackage{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		p := byDir[dir]
		if p == nil {
			p = &godocPackage{dir: dir, unexported: map[string]bool{}}
			byDir[dir] = p
		}
		p.add(fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []*godocPackage
	for _, p := range byDir {
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// add records f's exported doc comments and unexported names.
func (p *godocPackage) add(fset *token.FileSet, f *ast.File) {
	p.doc(fset, f.Doc)
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				p.unexported[d.Name.Name] = true
			} else if d.Recv == nil || exportedReceiver(d.Recv) {
				p.doc(fset, d.Doc)
				p.docs[len(p.docs)-1].params = funcParams(d)
			}
		case *ast.GenDecl:
			p.addGen(fset, d)
		}
	}
}

// addGen records a const, var or type declaration.
func (p *godocPackage) addGen(fset *token.FileSet, d *ast.GenDecl) {
	exported := false
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			if !s.Name.IsExported() {
				p.unexported[s.Name.Name] = true
				continue
			}
			exported = true
			p.doc(fset, s.Doc)
			p.members(fset, s.Type)
		case *ast.ValueSpec:
			for _, n := range s.Names {
				if !n.IsExported() {
					p.unexported[n.Name] = true
				} else {
					exported = true
					p.doc(fset, s.Doc)
				}
			}
		}
	}
	if exported {
		p.doc(fset, d.Doc)
	}
}

// members records the docs of an exported type's exported fields and
// interface methods.
func (p *godocPackage) members(fset *token.FileSet, typ ast.Expr) {
	var fields *ast.FieldList
	switch typ := typ.(type) {
	case *ast.StructType:
		fields = typ.Fields
	case *ast.InterfaceType:
		fields = typ.Methods
	default:
		return
	}
	for _, f := range fields.List {
		if len(f.Names) == 0 || slices.ContainsFunc(f.Names, (*ast.Ident).IsExported) {
			p.doc(fset, f.Doc)
		}
	}
}

func (p *godocPackage) doc(fset *token.FileSet, g *ast.CommentGroup) {
	if g != nil {
		p.docs = append(p.docs, godocComment{pos: fset.Position(g.Pos()), text: g.Text()})
	} else {
		p.docs = append(p.docs, godocComment{})
	}
}

// funcParams returns the names of a function's receiver, parameters and
// results.
func funcParams(d *ast.FuncDecl) map[string]bool {
	names := map[string]bool{}
	for _, l := range []*ast.FieldList{d.Recv, d.Type.Params, d.Type.Results} {
		if l == nil {
			continue
		}
		for _, f := range l.List {
			for _, n := range f.Names {
				names[n.Name] = true
			}
		}
	}
	return names
}

// exportedReceiver says whether a method's receiver type is exported.
func exportedReceiver(recv *ast.FieldList) bool {
	typ := recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
		case *ast.IndexExpr:
			typ = x.X
		case *ast.IndexListExpr:
			typ = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}

var (
	godocLink   = regexp.MustCompile(`\[\*?([A-Za-z_]\w*)(?:\.\w+)?\]`)
	godocLinkOK = regexp.MustCompile(`(?m)^\[[^\]]+\]: `)
	godocSee    = regexp.MustCompile("(?i)\\bsee `?([a-z_]\\w*)\\b")
	godocPoss   = regexp.MustCompile("(?i:\\b(a|an|each|every)\\s+)?\\b`?([a-z_]\\w*)`?'s\\b")
	godocCall   = regexp.MustCompile(`\b([a-z_]\w*)\(\)`)
	godocFile   = regexp.MustCompile(`(?i)\bthis\s+file\b|\bthe\s+README\b`)
)

// godocProblems lists what a doc comment says that its reader cannot
// follow, given the package's unexported names.
func godocProblems(text string, unexported, params map[string]bool) []string {
	var problems []string
	hidden := func(name string) bool {
		return unexported[name] && !params[name] && !slices.Contains(godocWords, name)
	}
	defined := godocLinkOK.FindAllString(text, -1)
	for _, m := range godocLink.FindAllStringSubmatch(text, -1) {
		if unexported[m[1]] && !slices.ContainsFunc(defined, func(d string) bool { return strings.HasPrefix(d, m[0]) }) {
			problems = append(problems, "doc link "+m[0]+" to an unexported name")
		}
	}
	for _, re := range []*regexp.Regexp{godocSee, godocPoss, godocCall} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			// The name is the last group; "a write's" (godocPoss's first
			// group) is the English word, not the identifier.
			name := m[len(m)-1]
			if hidden(name) && (len(m) < 3 || m[1] == "") {
				problems = append(problems, strings.TrimSpace(m[0])+": "+name+" is unexported")
			}
		}
	}
	for _, m := range godocFile.FindAllString(text, -1) {
		problems = append(problems, "\""+strings.Join(strings.Fields(m), " ")+"\": godoc shows no file")
	}
	return problems
}

func TestGodocProblems(t *testing.T) {
	t.Parallel()
	unexported := map[string]bool{"span": true, "write": true, "page": true, "newThing": true}
	for _, tc := range []struct {
		text string
		want int
	}{
		{"Flush writes the rows; see span.", 1},
		{"It calls write() once, as [span] says.", 1},
		{"The span's end is write's.", 1},
		{"A span's end is each span's.", 0},
		{"The span's end is the run's.", 1},
		{"See [Options] and the page's items; see page 2.", 0},
		{"[newThing]: https://example.com\n\nSee [newThing].", 0},
		{"As this file says, and the README too.", 2},
		{"A table per kind (see the\nREADME).", 1},
		{"Spans (see `span`) end.", 1},
	} {
		if got := godocProblems(tc.text, unexported, map[string]bool{"write": true}); len(got) != tc.want {
			t.Errorf("godocProblems(%q) = %q, want %d", tc.text, got, tc.want)
		}
	}
}
