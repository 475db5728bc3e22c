package main

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/edapptest/fakedata"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/scsrc"
	"github.com/edapp-go/edapp/export/sqldest"
	"github.com/edapp-go/edapp/safetyculture"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// scEnv is the environment of an export of sc's account.
func scEnv(sc *sctest.Server) env {
	return env{"SAFETYCULTURE_API_TOKEN": sc.Token, "SAFETYCULTURE_BASE_URL": sc.URL}
}

// scFakeCounts is what sc holds of each SafetyCulture kind, read through
// the client, the per-user kinds' included.
func scFakeCounts(t *testing.T, sc *sctest.Server) map[string]int {
	t.Helper()
	ctx := context.Background()
	c, err := safetyculture.NewClient(sc.Token, edapp.WithBaseURL(sc.URL))
	if err != nil {
		t.Fatal(err)
	}
	users := scFakeUserIDs(t, c)
	got := map[string]int{
		"users": len(users), "groups": count(t, c.Feeds.AllGroups(ctx)), "group_members": count(t, c.Feeds.AllGroupUsers(ctx)),
		"sites": count(t, c.Feeds.AllSites(ctx)), "site_members": count(t, c.Feeds.AllSiteMembers(ctx)),
		"courses": count(t, c.Courses.All(ctx, nil)), "collections": count(t, c.Collections.All(ctx, nil)),
		"learning_paths":  count(t, c.Paths.All(ctx, nil)),
		"course_progress": count(t, c.Feeds.AllCourseProgress(ctx, &safetyculture.FeedOptions{CompletionStatus: safetyculture.CompletionAll})),
	}
	for co, err := range c.Courses.All(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		lessons, err := c.Courses.Lessons(ctx, co.ID)
		if err != nil {
			t.Fatal(err)
		}
		got["lessons"] += len(lessons)
	}
	for col, err := range c.Collections.All(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		got["collection_courses"] += count(t, c.Collections.AllCourses(ctx, col.ID, nil))
	}
	maps.Copy(got, scFakeAnalyticsCounts(t, c.Analytics, users))
	return got
}

// scFakeUserIDs is every user of the feed, deactivated ones too.
func scFakeUserIDs(t *testing.T, c *safetyculture.Client) []string {
	t.Helper()
	var users []string
	for opts := (&safetyculture.FeedOptions{IncludeInactive: true}); opts != nil; {
		page, err := c.Feeds.ListUsers(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range page.Items {
			users = append(users, u.ID)
		}
		opts = nil
		if page.NextPage != "" {
			opts = &safetyculture.FeedOptions{NextPage: page.NextPage}
		}
	}
	return users
}

// scFakeAnalyticsCounts is what the analytics reads hold, account-wide
// and summed over users.
func scFakeAnalyticsCounts(t *testing.T, a *safetyculture.AnalyticsService, users []string) map[string]int {
	t.Helper()
	ctx := context.Background()
	got := map[string]int{
		"attempts":               count(t, a.AllLessonAttempts(ctx, nil)),
		"course_statistics":      count(t, a.AllCourseStatistics(ctx, nil)),
		"lesson_statistics":      count(t, a.AllLessonStatistics(ctx, nil)),
		"slide_statistics":       count(t, a.AllSlideStatistics(ctx, nil)),
		"survey_questions":       count(t, a.AllSurveyQuestionDefinitions(ctx, nil)),
		"survey_answers":         count(t, a.AllSurveyAnswers(ctx, nil)),
		"rapid_refresh_answers":  count(t, a.AllRapidRefreshAnswers(ctx, nil)),
		"lesson_progress_events": count(t, a.AllLessonProgressEvents(ctx, nil)),
	}
	for _, id := range users {
		got["user_lesson_progress"] += count(t, a.AllUserLessonProgress(ctx, id, nil))
		got["user_lesson_progress_events"] += count(t, a.AllUserLessonProgressEvents(ctx, id, nil))
		got["user_slide_statistics"] += count(t, a.AllUserSlideStatistics(ctx, id, nil))
	}
	return got
}

// wantSCCounts checks that the database holds, per SafetyCulture kind
// filter accepts, as many safetyculture rows as the fake: none of the
// others.
func wantSCCounts(t *testing.T, db *sql.DB, want map[string]int, filter func(export.Kind) bool) {
	t.Helper()
	for _, k := range scsrc.Kinds() {
		got := rowsOfDB(t, db, `SELECT COUNT(*) FROM `+k.Name+` WHERE source = 'safetyculture'`)[0][0]
		w := want[k.Name]
		if !filter(k) {
			if k.PerUser && got != "0" {
				t.Errorf("%s: %s safetyculture rows without --per-user", k.Name, got)
			}
			continue
		}
		if got != strconv.Itoa(w) || w == 0 {
			t.Errorf("%s: %s safetyculture rows, the fake holds %d", k.Name, got, w)
		}
	}
}

// TestExportBothSourcesIntoOneDatabase: EdApp and SafetyCulture exported
// into one database hold, per source, what each fake holds, every
// SafetyCulture kind included (the per-user ones with --per-user only); a
// re-run of SafetyCulture changes nothing, and neither touches EdApp's
// rows.
func TestExportBothSourcesIntoOneDatabase(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 5)
		sc := sctest.New(t)
		if _, err := fakedata.SeedMigration(sc, srv); err != nil {
			t.Fatal(err)
		}
		wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url), exitOK)
		db, _ := openTestDB(t, url)
		edappRows := sourceSnapshot(t, db, sqldest.SourceEdApp)
		want := scFakeCounts(t, sc)
		wantCode(t, runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url), exitOK)
		wantSCCounts(t, db, want, func(k export.Kind) bool { return !k.PerUser })
		wantCode(t, runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url, "--per-user"), exitOK)
		wantSCCounts(t, db, want, func(export.Kind) bool { return true })
		first := sourceSnapshot(t, db, sqldest.SourceSafetyCulture)
		wantCode(t, runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url, "--per-user"), exitOK)
		again := sourceSnapshot(t, db, sqldest.SourceSafetyCulture)
		for q := range first {
			if strings.HasPrefix(q, "SELECT") { // the run's own: its number, when kinds completed
				delete(first, q)
			}
		}
		diffSnapshots(t, "a second SafetyCulture run", first, again)
		diffSnapshots(t, "EdApp's rows after SafetyCulture's runs", edappRows, sourceSnapshot(t, db, sqldest.SourceEdApp))
	})
}

// TestSafetyCultureExportProgressShowsFeedTotals: a feed kind's progress
// shows the total its first page announces.
func TestSafetyCultureExportProgressShowsFeedTotals(t *testing.T) {
	t.Parallel()
	sc := sctest.New(t)
	for i := range 3 {
		if _, err := sc.AddUser(sctest.UserSpec{Email: fmt.Sprintf("u%d@example.com", i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := sc.AddGroup("", fmt.Sprintf("Group %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	r := runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--out", t.TempDir(), "--kinds", "users,groups")
	wantCode(t, r, exitOK)
	for _, kind := range []string{"users", "groups"} {
		m := regexp.MustCompile(`(?m)\b` + kind + `: done, (\d+)/(\d+) records`).FindStringSubmatch(r.stderr)
		if m == nil || m[1] != m[2] || m[1] == "0" {
			t.Errorf("%s: no total shown (%q) in\n%s", kind, m, r.stderr)
		}
	}
}
