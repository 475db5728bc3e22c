package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/edapp-go/edapp/dbschema"
	"github.com/edapp-go/edapp/edapptest"
)

// serveUsers overrides the fake's GET /v2/users with one page holding the
// given users, as raw JSON: bytes the fake itself would never send.
func serveUsers(t *testing.T, srv *edapptest.Server, users ...string) {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		items := users
		if page, _ := strconv.Atoi(r.URL.Query().Get("page")); page > 1 {
			items = nil
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"totalCount":` + strconv.Itoa(len(users)) + `,"items":[` + strings.Join(items, ",") + `]}`))
	})
	if err := srv.Handle("GET /v2/users", h); err != nil {
		t.Fatal(err)
	}
}

// TestExportDBStoresInvalidUTF8AndLongValues: bytes that are not UTF-8, in
// a known field and in one the SDK keeps raw, are stored as U+FFFD on both
// databases, and a secondary indexed value of 5,000 bytes is stored whole:
// PostgreSQL refused both rows, on every run.
func TestExportDBStoresInvalidUTF8AndLongValues(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 0)
		long := strings.Repeat("x", 5000)
		serveUsers(t, srv, `{"id":"u-latin","name":"latin","firstName":"Ren`+"\xe9"+`","nickname":"caf`+"\xe9\xe9"+`"}`,
			`{"id":"u-long","name":"long","externalId":"`+long+`"}`)
		r := runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users")
		wantCode(t, r, exitOK)
		db, dialect := openTestDB(t, url)
		var first, raw, external string
		if err := db.QueryRow(dbschema.Rebind(dialect, `SELECT first_name, raw FROM users WHERE id = ?`), "u-latin").Scan(&first, &raw); err != nil {
			t.Fatal(err)
		}
		var kept map[string]any
		err := json.Unmarshal([]byte(raw), &kept)
		if err != nil || first != "Ren\uFFFD" || !utf8.ValidString(raw) || !strings.Contains(raw, "caf\uFFFD\uFFFD") {
			t.Errorf("first_name %q, raw %s (%v): want each bad byte as U+FFFD", first, raw, err)
		}
		if err := db.QueryRow(dbschema.Rebind(dialect, `SELECT external_id FROM users WHERE id = ?`), "u-long").Scan(&external); err != nil || external != long {
			t.Errorf("external_id of %d bytes, %v; want %d", len(external), err, len(long))
		}
	})
}
