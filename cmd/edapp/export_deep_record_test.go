package main

import (
	"context"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// TestExportDeepRecordGoesToRejects: a record nested 20,000 deep, which
// encoding/json cannot read, costs that record only: the page's other
// records are stored, and it is kept in rejects with its bytes as sent,
// from both sources, on both databases.
func TestExportDeepRecordGoesToRejects(t *testing.T) {
	t.Parallel()
	deep := `{"id":"user_deep","nest":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
	t.Run("edapp", func(t *testing.T) {
		t.Parallel()
		bothDBs(t, func(t *testing.T, url string) {
			srv, _ := exportFixture(t, 0)
			serveUsers(t, srv, `{"id":"u1","name":"one"}`, deep, `{"id":"u2","name":"two"}`)
			wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users"), exitRejected)
			db, _ := openTestDB(t, url)
			if got := rowsOfDB(t, db, `SELECT id FROM users WHERE source = 'edapp' ORDER BY id`); len(got) != 2 || got[0][0] != "u1" || got[1][0] != "u2" {
				t.Errorf("users %v, want u1 and u2", got)
			}
			rejects := rowsOfDB(t, db, `SELECT source, kind, reason, raw FROM rejects`)
			if len(rejects) != 1 || rejects[0][0] != "edapp" || !strings.Contains(rejects[0][3], "user_deep") {
				t.Fatalf("%d rejects, want the deep user's", len(rejects))
			}
		})
	})
	t.Run("safetyculture", func(t *testing.T) {
		t.Parallel()
		bothDBs(t, func(t *testing.T, url string) {
			sc := sctest.New(t)
			sc.Handle("GET /feed/users", answerJSON(`{"metadata":{"next_page":null},"data":[
			{"id":"user_a","email":"a@example.com","active":true},`+deep+`,
			{"id":"user_b","email":"b@example.com","active":true}]}`))
			wantCode(t, runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url, "--kinds", "users"), exitRejected)
			db, _ := openTestDB(t, url)
			if got := rowsOfDB(t, db, `SELECT id FROM users WHERE source = 'safetyculture' ORDER BY id`); len(got) != 2 || got[0][0] != "user_a" || got[1][0] != "user_b" {
				t.Errorf("users %v, want user_a and user_b", got)
			}
			rejects := rowsOfDB(t, db, `SELECT source, kind, reason, raw FROM rejects`)
			if len(rejects) != 1 {
				t.Fatalf("%d rejects, want 1", len(rejects))
			}
			r := rejects[0]
			if r[0] != "safetyculture" || r[1] != "users" || !strings.Contains(r[2], "data[1]") || !strings.Contains(r[3], "user_deep") {
				t.Errorf("reject %q %q %q, raw of %d bytes: want the deep user's record", r[0], r[1], r[2], len(r[3]))
			}
		})
	})
}
