package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/edapptest/fakedata"

	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// movedDB is a database of url's kind holding both exports of a small
// planted move.
func movedDB(t *testing.T, url string) {
	t.Helper()
	srv := migrationFixture(t, 12)
	sc := sctest.New(t)
	if _, err := fakedata.SeedMigration(sc, srv); err != nil {
		t.Fatal(err)
	}
	exportBoth(t, srv, sc, url)
}

// runAsNobody runs edapp (this test binary, re-run) with args as the user
// nobody when the test runs as root (which writes anywhere), as itself
// otherwise. The binary is copied where nobody can run it.
func runAsNobody(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	bin := filepath.Join(publicDir(t), "edapp.test")
	if err := copyFile(os.Args[0], bin, 0o755); err != nil {
		t.Fatal(err)
	}
	name, argv := bin, []string{"-test.run=^$"}
	if os.Geteuid() == 0 {
		runuser, err := exec.LookPath("runuser")
		if err != nil {
			skipMissing(t, "runuser not found: the read-only tests run the report as nobody")
		}
		name, argv = runuser, append([]string{"-u", "nobody", "--", bin}, argv...)
	}
	cmd := exec.Command(name, argv...)
	cmd.Env = []string{childArgsEnv + "=" + strings.Join(args, "\n"), "PATH=" + os.Getenv("PATH")}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), errOut.String(), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), 0
}

// publicDir is a new directory everyone may read and enter.
func publicDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "edapp-report-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyFile(from, to string, mode os.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	if err := dst.Close(); err != nil {
		return err
	}
	return os.Chmod(to, mode)
}

// listing is dir's entries with their sizes and times.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(e.Name(), " ", info.Mode(), " ", info.ModTime(), " ", info.Size()))
	}
	return out
}

// TestMigrateReportReadOnly: the report reads a SQLite database in a
// directory its user cannot write (opened immutable, which it says),
// changing nothing there; a path that does not exist is exit 2, naming
// it, and is not created.
func TestMigrateReportReadOnly(t *testing.T) {
	t.Parallel()
	url := sameKind(t, "sqlite:")
	movedDB(t, url)
	dir := publicDir(t)
	path := filepath.Join(dir, "training.db")
	if err := copyFile(strings.TrimPrefix(url, "sqlite:"), path, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	before := listing(t, dir)
	stdout, stderr, code := runAsNobody(t, "migrate", "report", "--db", "sqlite:"+path, "-o", "json")
	if code != exitOK || !strings.Contains(stdout, `"schema_version": 1`) {
		t.Fatalf("exit %d\nstdout %.300s\nstderr %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "immutable") {
		t.Errorf("stderr does not say the file was read as immutable: %q", stderr)
	}
	if after := listing(t, dir); !slices.Equal(before, after) {
		t.Errorf("the directory changed:\nbefore %v\nafter  %v", before, after)
	}

	os.Chmod(dir, 0o755)
	for _, missing := range []string{filepath.Join(dir, "typo.db"), filepath.Join(dir, "no", "such", "dir.db")} {
		_, stderr, code := runAsNobody(t, "migrate", "report", "--db", "sqlite:"+missing)
		if code != exitUsage || !strings.Contains(stderr, missing) || !strings.Contains(stderr, "does not exist") {
			t.Errorf("%s: exit %d, stderr %q; want %d naming it", missing, code, stderr, exitUsage)
		}
		if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was created", missing)
		}
	}
}

// TestOpenReadOnlyRefusesWrites: the report's database refuses a write,
// on SQLite (mode=ro) and on PostgreSQL (a read-only transaction).
func TestOpenReadOnlyRefusesWrites(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, _, err := openDB(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`CREATE TABLE t (x integer)`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		ro, err := openReadOnly(ctx, url, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		defer ro.close()
		if _, err := ro.q.QueryContext(ctx, `INSERT INTO t (x) VALUES (1)`); err == nil {
			t.Error("a write went through")
		}
	})
}
