package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCLIImportsNoRootInternal: the command is a module of its own, tagged
// apart from the root, so it may use only the root's public API; an
// internal change in the root must not break a released command.
func TestCLIImportsNoRootInternal(t *testing.T) {
	t.Parallel()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
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
