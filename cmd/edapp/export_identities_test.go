package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/edapp-go/edapp/edapptest/fakedata"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// identityRow is one row of identities: the SafetyCulture id and how it
// was matched.
type identityRow struct{ scID, matchedBy string }

// readIdentities is identities by kind, then EdApp id ("" keys the rows
// of SafetyCulture only, by SafetyCulture id prefixed "sc:").
func readIdentities(t *testing.T, url string) map[string]map[string]identityRow {
	t.Helper()
	out := map[string]map[string]identityRow{}
	for _, r := range rowsOf(t, url, `SELECT kind, COALESCE(edapp_id, ''), COALESCE(safetyculture_id, ''), matched_by FROM identities`) {
		if out[r[0]] == nil {
			out[r[0]] = map[string]identityRow{}
		}
		key := r[1]
		if key == "" {
			key = "sc:" + r[2]
		}
		if _, dup := out[r[0]][key]; dup {
			t.Errorf("identities: %s %s twice", r[0], key)
		}
		out[r[0]][key] = identityRow{r[2], r[3]}
	}
	return out
}

// TestIdentitiesMatchTheMigratedAccount: after both exports, identities
// pairs every person, course and lesson the migration carried, by the way
// the fake left them matchable, and flags the person it made unmatchable.
func TestIdentitiesMatchTheMigratedAccount(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 12)
		sc := sctest.New(t)
		mig, err := fakedata.SeedMigration(sc, srv)
		if err != nil {
			t.Fatal(err)
		}
		wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url), exitOK)
		wantCode(t, runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url), exitOK)
		ids := readIdentities(t, url)
		unmatched, emailChanged := mig.Planted.Unmatched, mig.Planted.EmailChanged
		for edID, scID := range mig.Users {
			got := ids["person"][edID]
			switch {
			case unmatched != nil && edID == unmatched.EdAppUserID:
				if got.matchedBy != "none" || ids["person"]["sc:"+scID].matchedBy != "none" {
					t.Errorf("the unmatchable person %s: %+v, and SafetyCulture's %+v", edID, got, ids["person"]["sc:"+scID])
				}
			case emailChanged != nil && edID == emailChanged.EdAppUserID:
				// Only the external id matches; SafetyCulture shows it in
				// the person's course-progress and attempt rows, if any.
				want := identityRow{scID, "external_id"}
				if len(rowsOf(t, url, `SELECT user_id FROM course_progress WHERE source = 'safetyculture' AND user_id = '`+scID+`'
UNION SELECT user_id FROM attempts WHERE source = 'safetyculture' AND user_id = '`+scID+`'`)) == 0 {
					want = identityRow{"", "none"}
				}
				if got != want {
					t.Errorf("the person whose email changed %s: %+v, want %+v", edID, got, want)
				}
			case got.scID != scID || (got.matchedBy != "email" && got.matchedBy != "external_id"):
				t.Errorf("person %s: %+v, want %s", edID, got, scID)
			}
		}
		for _, edID := range mig.NoEmail {
			if got := ids["person"][edID]; got.matchedBy != "none" && got.matchedBy != "external_id" {
				t.Errorf("person %s left behind: %+v", edID, got)
			}
		}
		for kind, pairs := range map[string]map[string]string{"course": mig.Courses, "lesson": mig.Lessons} {
			for edID, scID := range pairs {
				if got := ids[kind][edID]; got.scID != scID || got.matchedBy == "none" || got.matchedBy == "conflict" {
					t.Errorf("%s %s: %+v, want %s", kind, edID, got, scID)
				}
			}
		}
		checkViews(t, url)
		if c := mig.Planted.CourseExternalID; c != nil && ids["course"][c.EdAppCourseID].matchedBy != "title" {
			t.Errorf("the course whose external id changed: %+v, want by title", ids["course"][c.EdAppCourseID])
		}
	})
}

// checkViews: training_completions has a row per completed course of
// either source, each with its person's identity; people one per person.
func checkViews(t *testing.T, url string) {
	t.Helper()
	for _, q := range [][2]string{
		{`SELECT source, COUNT(*) FROM training_completions GROUP BY source ORDER BY source`,
			`SELECT source, COUNT(*) FROM course_progress WHERE completed_date_time IS NOT NULL GROUP BY source ORDER BY source`},
		{`SELECT COUNT(*) FROM training_completions WHERE person_id IS NULL`, `SELECT 0`},
		{`SELECT COUNT(*) FROM people`, `SELECT COUNT(*) FROM identities WHERE kind = 'person'`},
	} {
		if got, want := rowsOf(t, url, q[0]), rowsOf(t, url, q[1]); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: %v, want %v", q[0], got, want)
		}
	}
	b, err := os.ReadFile("../../docs/export-database.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := regexp.MustCompile("(?s)```sql\n(SELECT [^`]*?FROM (?:training_completions|people)[^`]*?)```").FindAllStringSubmatch(string(b), -1)
	if len(examples) != 2 {
		t.Errorf("docs/export-database.md has %d example queries of the views, want 2", len(examples))
	}
	for _, m := range examples {
		if len(rowsOf(t, url, m[1])) == 0 {
			t.Errorf("docs/export-database.md's query answers nothing:\n%s", m[1])
		}
	}
}

// TestIdentitiesHoldEveryPerson: identities are written many to a
// statement; every person gets exactly one row, past the first statement's.
func TestIdentitiesHoldEveryPerson(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 0)
		users := make([]string, 1234)
		for i := range users {
			users[i] = fmt.Sprintf(`{"id":"u%04d","name":"n%04d","email":"p%04d@example.com"}`, i, i, i)
		}
		serveUsers(t, srv, users...)
		wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users"), exitOK)
		if got := len(readIdentities(t, url)["person"]); got != len(users) {
			t.Errorf("%d people in identities, want %d", got, len(users))
		}
	})
}

// TestIdentitiesKeepTheirIdsWhenNothingChanged: a re-run that changed no
// one writes nothing to identities, so its rows keep their ids (moved out
// of the range a rewrite would give them); a changed email rebuilds it.
func TestIdentitiesKeepTheirIdsWhenNothingChanged(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, _ := exportFixture(t, 0)
		users := []string{`{"id":"u1","name":"One","email":"one@example.com"}`, `{"id":"u2","name":"Two","email":"two@example.com"}`}
		serveUsers(t, srv, users...)
		exportUsers := func() [][]string {
			wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url, "--kinds", "users"), exitOK)
			return rowsOf(t, url, `SELECT edapp_id, CAST(id AS TEXT), email FROM identities ORDER BY edapp_id`)
		}
		exportUsers()
		db, _ := openTestDB(t, url)
		if _, err := db.Exec(`UPDATE identities SET id = id + 1000`); err != nil {
			t.Fatal(err)
		}
		moved := rowsOf(t, url, `SELECT edapp_id, CAST(id AS TEXT), email FROM identities ORDER BY edapp_id`)
		if again := exportUsers(); !slices.EqualFunc(moved, again, slices.Equal) {
			t.Errorf("a re-run with nothing changed: identities %q, then %q", moved, again)
		}
		serveUsers(t, srv, users[0], `{"id":"u2","name":"Two","email":"two@example.org"}`)
		if changed := exportUsers(); len(changed) != 2 || changed[1][2] != "two@example.org" {
			t.Errorf("after an email changed: identities %q, want u2 with its new email", changed)
		}
	})
}

// TestIdentitiesRebuiltOnlyWhenTheirInputsChanged: a run that changed no
// one leaves identities as they are, a row added by hand included; a run
// stopped after it wrote a change, before its rebuild, leaves the rebuild
// to the next run, even one that writes nothing; a deletion rebuilds them
// (the person deleted stays, marked left: users_history knows them).
func TestIdentitiesRebuiltOnlyWhenTheirInputsChanged(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv, demo := exportFixture(t, 12)
		ctx := context.Background()
		exportUsers := func() {
			wantCode(t, runExport(t, ctx, srv, func(f *factory) { withPageSize(f, 5) }, "--db", url, "--kinds", "users"), exitOK)
		}
		exportUsers()
		db, d := openTestDB(t, url)
		byHand := func() bool {
			return countRows(t, db, `SELECT COUNT(*) FROM identities WHERE edapp_id = 'by-hand'`) == 1
		}
		addByHand := func() {
			if _, err := db.Exec(`INSERT INTO identities (kind, edapp_id, matched_by) VALUES ('person', 'by-hand', 'none')`); err != nil {
				t.Fatal(err)
			}
		}
		addByHand()
		exportUsers()
		if !byHand() {
			t.Fatal("a run with nothing changed rebuilt identities")
		}

		renamed := demo.UserIDs[0]
		if _, err := srv.Client().Users.Update(ctx, renamed, edapp.UserUpdateParams{Email: edapp.Ptr("renamed@example.org")}); err != nil {
			t.Fatal(err)
		}
		exportUsersInterrupted(t, srv, url, db)
		if countRows(t, db, `SELECT COUNT(*) FROM users WHERE email = 'renamed@example.org'`) != 1 {
			t.Fatal("the interrupted run did not write the change") // the test's premise
		}
		if !byHand() {
			t.Fatal("the interrupted run rebuilt identities")
		}
		exportUsers()
		if byHand() {
			t.Error("the run after the interrupted one left identities unbuilt")
		}
		var email string
		if err := db.QueryRow(rebind(d, `SELECT email FROM identities WHERE edapp_id = ?`), renamed).Scan(&email); err != nil || email != "renamed@example.org" {
			t.Errorf("the renamed person's email in identities: %q, %v", email, err)
		}

		addByHand()
		if err := srv.Client().Users.Delete(ctx, demo.UserIDs[1]); err != nil {
			t.Fatal(err)
		}
		exportUsers()
		if byHand() || countRows(t, db, `SELECT COUNT(*) FROM identities WHERE edapp_id = '`+demo.UserIDs[1]+`' AND edapp_left`) != 1 {
			t.Error("a run that deleted a user left identities unbuilt, or the user not there as left")
		}
	})
}
