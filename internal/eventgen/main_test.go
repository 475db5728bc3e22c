package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedFileIsCurrent fails when events_methods.go is not what
// go generate writes from events.go today.
func TestGeneratedFileIsCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	src, err := os.ReadFile(filepath.Join(root, "events.go"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "events_methods.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("events_methods.go is out of date: run go generate in the module's root")
	}
}

func TestGenerateRejectsAnOddTable(t *testing.T) {
	for _, src := range []string{
		"package edapp\n",
		"package edapp\nvar eventTable = 1\n",
		"package edapp\nvar eventTable = []struct{}{{1, 2}}\n",
		"package edapp\nvar eventTable = []row{{EventX, newEvent[x.Y]}}\n",
	} {
		if _, err := generate([]byte(src)); err == nil {
			t.Errorf("no error for %q", src)
		}
	}
}
