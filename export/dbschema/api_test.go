package dbschema

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxExported bounds the package's public API: the schema and its
// migrator, nothing else (value cleaners, error classifiers and the
// rejects table belong to the code that writes rows).
const maxExported = 30

// TestExportedIdentifiers counts the package's exported top-level
// identifiers (types, functions, constants and variables; methods and
// fields belong to their type) with go/ast.
func TestExportedIdentifiers(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, exportedNames(f)...)
	}
	slices.Sort(names)
	if len(names) > maxExported {
		t.Errorf("dbschema exports %d identifiers, at most %d: %v", len(names), maxExported, names)
	}
}

// exportedNames are the exported top-level identifiers f declares.
func exportedNames(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						out = append(out, s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							out = append(out, n.Name)
						}
					}
				}
			}
		}
	}
	return out
}
