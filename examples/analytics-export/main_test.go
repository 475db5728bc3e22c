package main

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"
)

func TestExportAgainstFake(t *testing.T) {
	t.Setenv("EDAPP_API_TOKEN", "")
	dir := filepath.Join(t.TempDir(), "new", "export") // not there yet
	// Small pages, so the export streams across many of them.
	if err := run(context.Background(), dir, "", 50, 200); err != nil {
		t.Fatal(err)
	}
	for name, min := range map[string]int{"attempts.csv": 300, "courseprogress.csv": 200} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows)-1 < min {
			t.Errorf("%s: %d records, want at least %d", name, len(rows)-1, min)
		}
	}
}
