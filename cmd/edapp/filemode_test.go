package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestFilesModeRule checks the one rule for the files an export makes:
// new ones are 0600 (exported files, state, the SQLite database,
// --stats), and a file that exists keeps its mode on the next run.
func TestFilesModeRule(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 1)
	tmp := t.TempDir()
	out, db, stats := filepath.Join(tmp, "out"), filepath.Join(tmp, "edapp.db"), filepath.Join(tmp, "stats.json")
	args := []string{"--out", out, "--db", "sqlite:" + db, "--stats", stats, "--kinds", "users"}
	wantCode(t, runExport(t, context.Background(), srv, nil, args...), exitOK)
	files := []string{db, stats} // the WAL is gone once the database closes
	_ = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if len(files) < 4 {
		t.Fatalf("too few files to check: %v", files)
	}
	for _, f := range files {
		if m := mode(t, f); m != 0o600 {
			t.Errorf("%s: new with mode %o, want 600", f, m)
		}
	}
	for _, f := range files {
		if err := os.Chmod(f, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, runExport(t, context.Background(), srv, nil, append(args, "--full")...), exitOK)
	for _, f := range files {
		if m := mode(t, f); m != 0o640 {
			t.Errorf("%s: mode %o after a run, want 640 as it was", f, m)
		}
	}
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}
