package main

import (
	"net/http"
	"testing"

	"github.com/edapp-go/edapp/edapptest/fakedata"

	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/edapp-go/edapp/export/sqldest"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// answerJSON answers every request with body.
func answerJSON(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	})
}

// TestExportSafetyCultureNulls: what SafetyCulture did not send is NULL,
// never a value made from a zero: a score of 0 (proto3 sends none and 0
// alike), a score no float64 holds, a user with no active member; a
// score that was sent, and an active flag sent false, are kept as sent.
func TestExportSafetyCultureNulls(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		sc := sctest.New(t)
		sc.Handle("GET /feed/users", answerJSON(`{"metadata":{"next_page":null},"data":[
			{"id":"user_a","email":"a@example.com","firstname":"A","lastname":"One"},
			{"id":"user_b","email":"b@example.com","firstname":"B","lastname":"Two","active":false}]}`))
		sc.Handle("GET /training/v1/feed/training-course-progress", answerJSON(`{"metadata":{"next_page":null},"data":[
			{"user_id":"user_a","course_id":"c1","score":0,"completed_at":"2024-03-05T11:40:00Z"},
			{"user_id":"user_a","course_id":"c2","score":1e400},
			{"user_id":"user_a","course_id":"c3","score":75},
			{"user_id":"user_b","course_id":"c1"}]}`))
		sc.Handle("GET /training/analytics/v1/lessons/attempts", answerJSON(`{"totalCount":2,"items":[
			{"id":"att_0","userId":"user_a","lessonId":"l1","startedDateTime":"2024-03-05T11:00:00Z","score":0},
			{"id":"att_80","userId":"user_a","lessonId":"l1","startedDateTime":"2024-03-05T11:30:00Z","score":80}]}`))
		wantCode(t, runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url, "--kinds", "users,course_progress,attempts"), exitOK)
		db, _ := openTestDB(t, url)
		for query, want := range map[string]string{
			`SELECT COUNT(*) FROM course_progress WHERE source = 'safetyculture'`:                            "4",
			`SELECT COUNT(*) FROM course_progress WHERE source = 'safetyculture' AND score IS NULL`:          "3",
			`SELECT score FROM course_progress WHERE source = 'safetyculture' AND course_id = 'c3'`:          "75",
			`SELECT COUNT(*) FROM attempts WHERE source = 'safetyculture' AND score IS NULL`:                 "1",
			`SELECT score FROM attempts WHERE source = 'safetyculture' AND id = 'att_80'`:                    "80",
			`SELECT COUNT(*) FROM users WHERE source = 'safetyculture' AND id = 'user_a' AND active IS NULL`: "1",
			`SELECT COUNT(*) FROM users WHERE source = 'safetyculture' AND id = 'user_b' AND NOT active`:     "1",
		} {
			if got := rowsOfDB(t, db, query)[0][0]; got != want {
				t.Errorf("%s: %s, want %s", query, got, want)
			}
		}
	})
}

// TestMigrateReportScoreLostIsNull: a carried completion whose score was
// dropped (SafetyCulture sent 0, which says none) shows SafetyCulture's
// score as null in the JSON report, never 0.
func TestMigrateReportScoreLostIsNull(t *testing.T) {
	t.Parallel()
	url := dbtest.SQLite(t)
	srv := migrationFixture(t, 10)
	sc := sctest.New(t)
	if _, err := fakedata.SeedMigration(sc, srv); err != nil {
		t.Fatal(err)
	}
	exportBoth(t, srv, sc, url)
	lost := 0
	for _, d := range reportOf(t, url).Differences {
		if d.Category != sqldest.CategoryScoreLost {
			continue
		}
		lost++
		if d.SafetyCulture == nil || d.SafetyCulture.Score != nil {
			t.Errorf("score_lost: SafetyCulture's side %+v, want a null score", d.SafetyCulture)
		}
	}
	if lost == 0 {
		t.Fatal("no score_lost difference")
	}
}
