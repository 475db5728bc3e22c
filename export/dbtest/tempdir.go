package dbtest

import "os"

// A test binary's temporary files, the PostgreSQL server's among them, go
// to a file system in memory when the machine has one with room: on a disk
// file system the server's writes (each CREATE DATABASE copies its
// template, each test loads tables) and SQLite's cost the test machine
// many times the CPU, and nothing the tests check needs the files to
// outlive the test binary. A kill -9 leaves them as it leaves files on
// disk: in the kernel's page cache.

// maxWALMB bounds the write-ahead log the server keeps: in memory too,
// most often.
const maxWALMB = 256

// memoryTempDir points TMPDIR at a new directory in memory and returns
// it, unless TMPDIR is set or the machine has no room in memory; then it
// returns "".
func memoryTempDir() string {
	mem := memoryDir()
	if os.Getenv("TMPDIR") != "" || mem == "" {
		return ""
	}
	dir, err := os.MkdirTemp(mem, "edapp-test-")
	// Other users may pass through, as through /tmp, to what a test hands
	// them (a program run as nobody); each t.TempDir is its owner's alone.
	if err != nil || os.Chmod(dir, 0o755) != nil || os.Setenv("TMPDIR", dir) != nil {
		os.RemoveAll(dir)
		return ""
	}
	return dir
}
