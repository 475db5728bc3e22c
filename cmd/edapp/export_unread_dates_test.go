package main

import (
	"context"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// TestExportUnreadCompletionDate: a completion date that cannot be read is
// stored NULL, with every flag made from it (SafetyCulture's opened and
// completed, which its feed does not send), and kept as sent in raw; a
// flag the service sent itself is kept. Both sources, both databases.
func TestExportUnreadCompletionDate(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 0)
		for route, body := range map[string]string{
			"GET /v2/analytics/courseprogress": `{"totalCount":1,"items":[{"userId":"u1","courseId":"c1","completed":true,"completedDateTime":"last tuesday"}]}`,
			"GET /v2/analytics/attempts":       `{"totalCount":1,"items":[{"id":"a1","userId":"u1","lessonId":"l1","startedDateTime":"2024-03-05T11:00:00Z","completedDateTime":"31/02/2024"}]}`,
		} {
			if err := srv.Handle(route, answerJSON(body)); err != nil {
				t.Fatal(err)
			}
		}
		wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "course_progress,attempts"), exitOK)

		sc := sctest.New(t)
		sc.Handle("GET /training/v1/feed/training-course-progress", answerJSON(`{"metadata":{"next_page":null},"data":[
			{"user_id":"user_a","course_id":"c1","opened_at":"2024-03-05T11:00:00Z","completed_at":"soon"},
			{"user_id":"user_a","course_id":"c2","openedAt":{"when":"then"},"completedAt":"2024-03-05T11:40:00Z"},
			{"user_id":"user_a","course_id":"c3","opened_at":"2024-03-05T11:00:00Z"}]}`))
		wantCode(t, runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url, "--kinds", "course_progress"), exitOK)

		db, _ := openTestDB(t, url)
		for query, want := range map[string]string{
			`SELECT COUNT(*) FROM course_progress WHERE source = 'edapp' AND completed AND completed_date_time IS NULL`:                        "1",
			`SELECT COUNT(*) FROM attempts WHERE source = 'edapp' AND id = 'a1' AND completed_date_time IS NULL`:                               "1",
			`SELECT COUNT(*) FROM course_progress WHERE source = 'safetyculture' AND course_id = 'c1' AND completed IS NULL AND opened`:        "1",
			`SELECT COUNT(*) FROM course_progress WHERE source = 'safetyculture' AND course_id = 'c2' AND opened IS NULL AND completed`:        "1",
			`SELECT COUNT(*) FROM course_progress WHERE source = 'safetyculture' AND course_id = 'c3' AND opened AND NOT completed`:            "1",
			`SELECT COUNT(*) FROM course_progress WHERE source = 'safetyculture' AND completed_date_time IS NULL AND course_id IN ('c1','c3')`: "2",
		} {
			if got := rowsOfDB(t, db, query)[0][0]; got != want {
				t.Errorf("%s: %s, want %s", query, got, want)
			}
		}
		for query, sent := range map[string]string{
			`SELECT raw FROM course_progress WHERE source = 'edapp' AND course_id = 'c1'`:         `"lasttuesday"`,
			`SELECT raw FROM attempts WHERE source = 'edapp' AND id = 'a1'`:                       `"31/02/2024"`,
			`SELECT raw FROM course_progress WHERE source = 'safetyculture' AND course_id = 'c1'`: `"soon"`,
			`SELECT raw FROM course_progress WHERE source = 'safetyculture' AND course_id = 'c2'`: `{"when":"then"}`,
		} {
			if raw := rowsOfDB(t, db, query)[0][0]; !strings.Contains(strings.ReplaceAll(raw, " ", ""), strings.ReplaceAll(sent, " ", "")) {
				t.Errorf("%s: %s, want %s kept as sent", query, raw, sent)
			}
		}
	})
}
