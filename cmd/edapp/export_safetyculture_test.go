package main

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/safetyculture"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// scEnv is the environment of an export of sc's account.
func scEnv(sc *sctest.Server) env {
	return env{"SAFETYCULTURE_API_TOKEN": sc.Token, "SAFETYCULTURE_BASE_URL": sc.URL}
}

// scFakeCounts is what sc holds of each SafetyCulture kind, read through
// the client.
func scFakeCounts(t *testing.T, sc *sctest.Server) map[string]int {
	t.Helper()
	ctx := context.Background()
	c, err := safetyculture.NewClient(sc.Token, safetyculture.WithBaseURL(sc.URL))
	if err != nil {
		t.Fatal(err)
	}
	users := 0
	for opts := (&safetyculture.FeedOptions{IncludeInactive: true}); opts != nil; {
		page, err := c.Feeds.ListUsers(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		users += len(page.Items)
		opts = nil
		if page.NextPage != "" {
			opts = &safetyculture.FeedOptions{NextPage: page.NextPage}
		}
	}
	got := map[string]int{
		"users": users, "groups": count(t, c.Feeds.AllGroups(ctx)), "group_members": count(t, c.Feeds.AllGroupUsers(ctx)),
		"sites": count(t, c.Feeds.AllSites(ctx)), "site_members": count(t, c.Feeds.AllSiteMembers(ctx)),
		"courses": count(t, c.Courses.All(ctx, nil)), "collections": count(t, c.Collections.All(ctx, nil)),
		"attempts":        count(t, c.Analytics.AllLessonAttempts(ctx, nil)),
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
	return got
}

// TestExportBothSourcesIntoOneDatabase: EdApp and SafetyCulture exported
// into one database hold, per source, what each fake holds; a re-run of
// SafetyCulture changes nothing, and neither touches EdApp's rows.
func TestExportBothSourcesIntoOneDatabase(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 5)
		sc := sctest.New(t)
		if _, err := sc.SeedMigration(srv); err != nil {
			t.Fatal(err)
		}
		wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url), exitOK)
		db, _ := openTestDB(t, url)
		edappRows := sourceSnapshot(t, db, export.SourceEdApp)
		wantCode(t, runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url), exitOK)
		want := scFakeCounts(t, sc)
		for _, name := range export.SafetyCultureKindNames(func(export.Kind) bool { return true }) {
			got := rowsOfDB(t, db, `SELECT COUNT(*) FROM `+name+` WHERE source = 'safetyculture'`)[0][0]
			if w := want[name]; got != strconv.Itoa(w) || w == 0 {
				t.Errorf("%s: %s safetyculture rows, the fake holds %d", name, got, w)
			}
		}
		first := sourceSnapshot(t, db, export.SourceSafetyCulture)
		wantCode(t, runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url), exitOK)
		again := sourceSnapshot(t, db, export.SourceSafetyCulture)
		for q := range first {
			if strings.HasPrefix(q, "SELECT") { // the run's own: its number, when kinds completed
				delete(first, q)
			}
		}
		diffSnapshots(t, "a second SafetyCulture run", first, again)
		diffSnapshots(t, "EdApp's rows after SafetyCulture's runs", edappRows, sourceSnapshot(t, db, export.SourceEdApp))
	})
}
