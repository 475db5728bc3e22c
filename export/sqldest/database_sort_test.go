package sqldest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestBuildIndexSortsOnDisk: on SQLite a build sorts through temporary
// files and gives the connection its storage back; where the files fail
// (no directory for them), it builds again in memory.
func TestBuildIndexSortsOnDisk(t *testing.T) {
	t.Parallel()
	for _, failOnDisk := range []bool{false, true} {
		d := &fakeDriver{journal: "delete", failOnDisk: failOnDisk}
		x := openFakeDatabase(t, d, 2)
		if err := x.buildIndex(context.Background(), "CREATE INDEX attempts_user_id_idx ON attempts (user_id)"); err != nil {
			t.Fatalf("files failing %v: %v", failOnDisk, err)
		}
		label := map[string]string{"PRAGMA temp_store": "read", "PRAGMA temp_store = FILE": "files", "PRAGMA temp_store = 2": "back", "COMMIT": "commit", "ROLLBACK": "rollback"}
		var got []string
		for _, s := range d.ran(1) {
			if strings.HasPrefix(s, "CREATE INDEX") {
				got = append(got, "build")
			} else if l, ok := label[s]; ok {
				got = append(got, l)
			}
		}
		want := []string{"read", "files", "build", "commit", "back"}
		if failOnDisk {
			want = []string{"read", "files", "build", "rollback", "back", "build", "commit"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("files failing %v: the connection ran %q, want %q", failOnDisk, got, want)
		}
	}
}

func TestTempFileFailed(t *testing.T) {
	t.Parallel()
	for err, want := range map[error]bool{
		liteError(6410):            true,  // SQLITE_IOERR_GETTEMPPATH
		liteError(13):              true,  // SQLITE_FULL
		liteError(14):              true,  // SQLITE_CANTOPEN
		liteError(2067):            false, // a unique constraint
		errors.New("not sqlite's"): false,
		nil:                        false,
	} {
		if got := tempFileFailed(err); got != want {
			t.Errorf("tempFileFailed(%v) = %v, want %v", err, got, want)
		}
	}
}
