package dbtest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMemoryTempDirKeepsTMPDIR: a TMPDIR the user set stays as it is.
func TestMemoryTempDirKeepsTMPDIR(t *testing.T) {
	want := t.TempDir()
	t.Setenv("TMPDIR", want)
	if dir := memoryTempDir(); dir != "" || os.Getenv("TMPDIR") != want {
		t.Errorf("memoryTempDir() = %q, TMPDIR %q; want \"\" and TMPDIR %q", dir, os.Getenv("TMPDIR"), want)
	}
}

// TestMemoryTempDir: with TMPDIR unset, TMPDIR becomes a new directory in
// memory that others may pass through and only its owner may write, or
// stays unset on a machine without one.
func TestMemoryTempDir(t *testing.T) {
	t.Setenv("TMPDIR", "")
	dir := memoryTempDir()
	if memoryDir() == "" {
		if dir != "" || os.Getenv("TMPDIR") != "" {
			t.Fatalf("no memory file system, yet memoryTempDir() = %q, TMPDIR %q", dir, os.Getenv("TMPDIR"))
		}
		t.Skip("no memory file system with room on this machine")
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != memoryDir() || os.Getenv("TMPDIR") != dir || info.Mode().Perm() != 0o755 {
		t.Errorf("memoryTempDir() = %q (mode %v), TMPDIR %q; want a new directory of %s, mode 0755, and TMPDIR set to it",
			dir, info.Mode().Perm(), os.Getenv("TMPDIR"), memoryDir())
	}
}
