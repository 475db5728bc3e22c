package inbox_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/edapp-go/edapp/export/dbschema"
)

// TestStoreFullDatabaseAnswers503: a SQLite inbox with no room left
// answers 503 with Retry-After (try again), not 500; its write-ahead log
// is cut back after the failed write; once room is freed, the next
// delivery is stored. SQLite's max_page_count stands in for a full disk.
func TestStoreFullDatabaseAnswers503(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "inbox.db")
	plain, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	newTestStore(t, plain, dbschema.SQLite).Close() // the schema
	var pages int
	if err := plain.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	full, err := sql.Open("sqlite", fmt.Sprintf("%s?_pragma=max_page_count(%d)", path, pages+8))
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	store := newTestStore(t, full, dbschema.SQLite)
	defer store.Close()
	settings, err := store.Settings(ctx)
	if err != nil || settings["journal_size_limit"] == "" || settings["journal_size_limit"] == "-1" {
		t.Fatalf("journal_size_limit not set: %v, %v", settings, err)
	}
	h, err := store.Handler()
	if err != nil {
		t.Fatal(err)
	}
	deliver := func(i int) *httptest.ResponseRecorder {
		body, _ := lessonDelivery(i)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
		return w
	}
	i := 0
	for ; i < 10_000; i++ {
		if w := deliver(i); w.Code != http.StatusOK {
			if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
				t.Fatalf("delivery %d on a full database: status %d, Retry-After %q", i, w.Code, w.Header().Get("Retry-After"))
			}
			break
		}
	}
	if i == 10_000 || i == 0 {
		t.Fatalf("%d deliveries stored: the database never filled, or was full at once", i)
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 64<<20 {
		t.Errorf("the log is %d bytes after the failed write", fi.Size())
	}
	if _, err := plain.Exec(`DELETE FROM events`); err != nil { // room is freed
		t.Fatal(err)
	}
	if w := deliver(i); w.Code != http.StatusOK {
		t.Errorf("after room was freed: status %d", w.Code)
	}
}
