package sqldest

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/export/internal/dbwrite"
)

// The values of records as the databases store them.

// TestDatabaseStoresNUL: a record with a NUL character in its strings is
// exported on both databases, as sent on SQLite and with U+FFFD in its
// place on PostgreSQL, whose text and jsonb cannot hold it; the rest of
// its batch is written too.
func TestDatabaseStoresNUL(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 5)
		id, err := srv.AddUser(edapptest.UserSpec{Username: "nul", FirstName: "Ann\x00Lee", CustomFields: map[string]string{"site": "a\x00b"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := runDBExport(t, context.Background(), srv, url, kinds("users")); err != nil {
			t.Fatal(err)
		}
		db, dialect := openTestDB(t, url)
		nul := "\x00"
		if dialect == Postgres {
			nul = "\uFFFD"
		}
		var first, raw, site string
		if err := db.QueryRow(rebind(dialect, `SELECT first_name, raw FROM users WHERE id = ?`), id).Scan(&first, &raw); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(rebind(dialect, `SELECT value FROM user_custom_fields WHERE user_id = ?`), id).Scan(&site); err != nil {
			t.Fatal(err)
		}
		var kept map[string]any
		if err := json.Unmarshal([]byte(raw), &kept); err != nil || first != "Ann"+nul+"Lee" || kept["firstName"] != first || site != "a"+nul+"b" {
			t.Errorf("first_name %q, raw %s (%v), site %q; want the NULs as %q", first, raw, err, site, nul)
		}
		if got, want := countRows(t, db, `SELECT COUNT(*) FROM users`), fakeUsers(t, srv); got != want {
			t.Errorf("%d users, the fake holds %d", got, want)
		}
	})
}

// TestDatabaseKeyRepeatedInOnePage: a user the service lists twice in one
// page is written once, as first listed (the SDK's walk yields it once, as
// the upsert's comment says), on both databases.
func TestDatabaseKeyRepeatedInOnePage(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 3)
		h := srv.Handler()
		// The proxy repeats the first user of each page at its end, renamed.
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v2/users" {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			var page map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
				t.Error(err)
			}
			if items, _ := page["items"].([]any); len(items) > 0 {
				again := maps.Clone(items[0].(map[string]any))
				again["name"] = "the-last-record"
				page["items"] = append(items, again)
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(page)
		}))
		t.Cleanup(proxy.Close)
		client, err := edapp.NewClient(srv.Token, edapp.WithBaseURL(proxy.URL))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := exportInto(t, context.Background(), client, url, kinds("users")); err != nil {
			t.Fatal(err)
		}
		db, _ := openTestDB(t, url)
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM users WHERE name = 'the-last-record'`).Scan(&n); err != nil || n != 0 {
			t.Errorf("%d rows hold the repeat (%v), want the first record only", n, err)
		}
		if got, want := countRows(t, db, `SELECT COUNT(*) FROM users`), fakeUsers(t, srv); got != want {
			t.Errorf("%d users, the fake holds %d", got, want)
		}
	})
}

// TestDatabaseStoresInvalidUTF8AndLongValues: bytes that are not UTF-8, in
// a known field and in one the SDK keeps raw, are stored as U+FFFD on both
// databases, and a value of 5,000 bytes is stored whole (PostgreSQL once
// refused both rows, on every run; see TestDatabaseBoundsIndexedValues for
// an indexed column).
func TestDatabaseStoresInvalidUTF8AndLongValues(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 0)
		long := strings.Repeat("x", 5000)
		serveUsers(t, srv, `{"id":"u-latin","name":"latin","firstName":"Ren`+"\xe9"+`","nickname":"caf`+"\xe9\xe9"+`"}`,
			`{"id":"u-long","name":"`+long+`"}`)
		if err := runDBExport(t, context.Background(), srv, url, kinds("users")); err != nil {
			t.Fatal(err)
		}
		db, dialect := openTestDB(t, url)
		var first, raw, external string
		if err := db.QueryRow(rebind(dialect, `SELECT first_name, raw FROM users WHERE id = ?`), "u-latin").Scan(&first, &raw); err != nil {
			t.Fatal(err)
		}
		var kept map[string]any
		err := json.Unmarshal([]byte(raw), &kept)
		if err != nil || first != "Ren\uFFFD" || !utf8.ValidString(raw) || !strings.Contains(raw, "caf\uFFFD\uFFFD") {
			t.Errorf("first_name %q, raw %s (%v): want each bad byte as U+FFFD", first, raw, err)
		}
		if err := db.QueryRow(rebind(dialect, `SELECT name FROM users WHERE id = ?`), "u-long").Scan(&external); err != nil || external != long {
			t.Errorf("name of %d bytes, %v; want %d", len(external), err, len(long))
		}
	})
}

// TestDatabaseBoundsIndexedValues: a value over dbwrite.MaxIndexedBytes
// in an indexed column (users.external_id), which PostgreSQL's B-tree
// would refuse with its row, is stored as NULL there, on a first run (the
// index built after the load) and on a re-run (the index in place); the
// record is kept, its raw column holds the value, and nothing is rejected.
func TestDatabaseBoundsIndexedValues(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 0)
		long := incompressible(3 * dbwrite.MaxIndexedBytes) // PostgreSQL compresses an index entry first
		serveUsers(t, srv, `{"id":"a","name":"a","externalId":"`+long+`"}`, `{"id":"b","name":"b","externalId":"short"}`)
		for run := 1; run <= 2; run++ {
			if rejected, err := exportInto(t, context.Background(), srv.Client(), url, kinds("users")); err != nil || rejected != 0 {
				t.Fatalf("run %d: %d rejected, %v; want none", run, rejected, err)
			}
		}
		db, _ := openTestDB(t, url)
		got := column(t, db, `SELECT id || ':' || COALESCE(SUBSTR(external_id, 1, 5), 'NULL') FROM users ORDER BY id`)
		if strings.Join(got, ",") != "a:NULL,b:short" {
			t.Errorf("users %q, want a:NULL and b:short", got)
		}
		var raw string
		if err := db.QueryRow(`SELECT raw FROM users WHERE id = 'a'`).Scan(&raw); err != nil || !strings.Contains(raw, long) {
			t.Errorf("raw holds the long value: %v (%v)", strings.Contains(raw, long), err)
		}
		if n := len(readRejects(t, db)); n != 0 {
			t.Errorf("%d rejects, want none", n)
		}
	})
}
