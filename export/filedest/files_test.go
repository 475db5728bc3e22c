package filedest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/edappsrc"
)

// exportFiles runs the attempts into dir, parts of partSize records.
func exportFiles(t *testing.T, srv *edapptest.Server, dir string, partSize int) error {
	t.Helper()
	f, err := Open(dir, WithFormat("csv"), WithPartSize(partSize))
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = export.Run(context.Background(), edappsrc.New(srv.Client()), export.Options{Kinds: []string{"attempts"}}, f)
	return err
}

// filesFixture holds 60 attempts made just now, so that a re-run meets
// them all again (within the overlap).
func filesFixture(t *testing.T) *edapptest.Server {
	t.Helper()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	demo, err := fakedata.SeedDemo(srv)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		id, err := srv.AddUser(edapptest.UserSpec{Username: "learner" + strconv.Itoa(i)})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range demo.LessonIDs[0][:3] {
			if err := srv.CompleteLesson(id, l, 80); err != nil {
				t.Fatal(err)
			}
		}
	}
	return srv
}

func countRows(t *testing.T, dir string) int {
	t.Helper()
	parts, _ := filepath.Glob(filepath.Join(dir, "attempts", "part-*.csv"))
	n := 0
	for _, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		n += strings.Count(string(b), "\n") - 1
	}
	return n
}

// TestFilesKeysCutShort: a keys file cut at a line boundary is caught by
// the count and checksum in the state; the re-run fails clearly and
// writes no duplicate.
func TestFilesKeysCutShort(t *testing.T) {
	t.Parallel()
	srv := filesFixture(t)
	dir := t.TempDir()
	if err := exportFiles(t, srv, dir, 25); err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(dir, "attempts", ".part-000001.keys")
	b, err := os.ReadFile(keys)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keys, b[:len(b)/2/33*33], 0o644); err != nil {
		t.Fatal(err)
	}
	// The next run meets every record again (the overlap covers them).
	err = exportFiles(t, srv, dir, 25)
	if !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "--full") {
		t.Fatalf("run with a cut keys file: %v", err)
	}
	want := 0
	for _, err := range srv.Client().Analytics.AllAttempts(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		want++
	}
	if n := countRows(t, dir); n != want || want < 60 {
		t.Errorf("%d rows in the parts, want %d", n, want)
	}
}

// TestFilesStatePathsConfined: a state that names a file outside the
// export directory is refused, and the file is not read.
func TestFilesStatePathsConfined(t *testing.T) {
	t.Parallel()
	srv := filesFixture(t)
	dir := t.TempDir()
	if err := exportFiles(t, srv, dir, 25); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("TOPSECRET-LINE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{secret, "../" + filepath.Base(secret), "attempts/../../x/.part-000001.keys", "users/.part-000001.keys"} {
		var st map[string]any
		b, _ := os.ReadFile(filepath.Join(dir, stateFile))
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		st["kinds"].(map[string]any)["attempts"].(map[string]any)["parts"].([]any)[0].(map[string]any)["keys"] = bad
		b, _ = json.Marshal(st)
		if err := os.WriteFile(filepath.Join(dir, stateFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(dir)
		if !errors.Is(err, ErrState) || strings.Contains(err.Error(), "TOPSECRET") {
			t.Errorf("keys path %q: %v", bad, err)
		}
	}
}

// TestFilesLock: a second export into a directory is refused while the
// first holds it, with the holder's process id; a lock left by a process
// that is gone is taken over.
func TestFilesLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := Open(dir, WithFormat("csv"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, WithFormat("csv"))
	if !errors.Is(err, export.ErrLocked) || !strings.Contains(err.Error(), strconv.Itoa(os.Getpid())) {
		t.Fatalf("second OpenFiles: %v", err)
	}
	first.Close()
	// A process that has exited left its lock.
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if err := os.WriteFile(filepath.Join(dir, lockFile), []byte(strconv.Itoa(gone.Process.Pid)+" "+host+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(dir, WithFormat("csv"))
	if err != nil {
		t.Fatalf("a stale lock was not taken over: %v", err)
	}
	f.Close()
	if _, err := os.Stat(filepath.Join(dir, lockFile)); !os.IsNotExist(err) {
		t.Errorf("Close left the lock: %v", err)
	}
}
