package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export/sqldest"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// reportOf runs migrate report -o json on url.
func reportOf(t *testing.T, url string, args ...string) sqldest.Report {
	t.Helper()
	r := runEnv(t, env{}, append([]string{"migrate", "report", "--db", url, "-o", "json"}, args...)...)
	wantCode(t, r, exitOK)
	var rep sqldest.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	return rep
}

// diffKeys is the report's differences by category, each keyed by what it
// concerns: "person edappID/scID", "course edappID/scID", or
// "edappUser scUser course" for a completion, with its cause.
func diffKeys(rep sqldest.Report) map[string][]string {
	out := map[string][]string{}
	for _, d := range rep.Differences {
		var k string
		switch {
		case d.EdApp != nil || d.SafetyCulture != nil:
			k = "completion " + deref(d.Person.EdAppID) + "/" + deref(d.Person.SafetyCultureID) + " " + deref(d.Course.EdAppID) + "/" + deref(d.Course.SafetyCultureID)
			if d.Cause != nil {
				k += " cause " + *d.Cause
			}
		case d.Person != nil:
			k = "person " + deref(d.Person.EdAppID) + "/" + deref(d.Person.SafetyCultureID)
		default:
			k = "course " + deref(d.Course.EdAppID) + "/" + deref(d.Course.SafetyCultureID)
		}
		out[d.Category] = append(out[d.Category], k)
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// wantAddsUp checks that the report's totals add up: people and courses
// partition identities, completions each course's and in all.
func wantAddsUp(t *testing.T, url string, rep sqldest.Report) {
	t.Helper()
	p, c, k := rep.Totals.People, rep.Totals.Courses, rep.Totals.Completions
	var people, courses, edapp int
	for _, r := range rowsOf(t, url, `SELECT kind, COUNT(*) FROM identities GROUP BY kind`) {
		n := 0
		fmt.Sscan(r[1], &n)
		switch r[0] {
		case "person":
			people = n
		case "course":
			courses = n
		}
	}
	fmt.Sscan(rowsOf(t, url, `SELECT COUNT(*) FROM course_progress WHERE source = 'edapp' AND completed_date_time IS NOT NULL`)[0][0], &edapp)
	if got := p.Matched + p.EmailChanged + p.EdAppOnly + p.SafetyCultureOnly + p.IdentityConflict; got != people {
		t.Errorf("people add up to %d, identities hold %d: %+v", got, people, p)
	}
	if got := c.Matched + c.MatchedByTitle + c.EdAppOnly + c.SafetyCultureOnly + c.IdentityConflict; got != courses {
		t.Errorf("courses add up to %d, identities hold %d: %+v", got, courses, c)
	}
	if k.EdApp != edapp || k.Carried+k.Missing != k.EdApp {
		t.Errorf("completions: %+v; EdApp holds %d", k, edapp)
	}
	sum := 0
	for _, co := range rep.Courses {
		if co.Carried+co.Missing != co.EdAppCompletions {
			t.Errorf("course %s: %d carried + %d missing != %d", deref(co.Title), co.Carried, co.Missing, co.EdAppCompletions)
		}
		sum += co.EdAppCompletions
	}
	if sum != k.EdApp {
		t.Errorf("courses' completions add up to %d, want %d", sum, k.EdApp)
	}
	counts := map[string]int{}
	for _, d := range rep.Differences {
		counts[d.Category]++
	}
	for cat, n := range map[string]int{sqldest.CategoryPersonEdAppOnly: p.EdAppOnly, sqldest.CategoryEmailChanged: p.EmailChanged,
		sqldest.CategoryProbableSamePerson: p.ProbableSamePerson, sqldest.CategoryCompletionMissing: k.Missing,
		sqldest.CategoryScoreLost: k.ScoreLost, sqldest.CategoryCompletedAfterMove: k.CompletedAfterMove,
		sqldest.CategoryCompletionSafetyCultureOnly: k.SafetyCultureOnly, sqldest.CategoryCompletionDateChanged: k.DateChanged} {
		if counts[cat] != n {
			t.Errorf("%s: %d differences, total %d", cat, counts[cat], n)
		}
	}
}

// exportBoth seeds sc with srv's move and exports both into url.
func exportBoth(t *testing.T, srv *edapptest.Server, sc *sctest.Server, url string) {
	t.Helper()
	wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url), exitOK)
	wantCode(t, runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url), exitOK)
}

// plantedDiffs is the differences mig planted, keyed as diffKeys keys them.
func plantedDiffs(t *testing.T, url string, mig *fakedata.Migration) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	add := func(cat, k string) { out[cat] = append(out[cat], k) }
	left := map[string]bool{}
	for _, u := range mig.NoEmail {
		left[u] = true
		add(sqldest.CategoryPersonEdAppOnly, "person "+u+"/")
	}
	if u := mig.Planted.Unmatched; u != nil {
		left[u.EdAppUserID] = true
		add(sqldest.CategoryPersonEdAppOnly, "person "+u.EdAppUserID+"/")
		add(sqldest.CategoryPersonSafetyCultureOnly, "person /"+u.UserID)
		names := rowsOf(t, url, `SELECT COALESCE(first_name, ''), COALESCE(last_name, '') FROM users WHERE source = 'edapp' AND id = '`+u.EdAppUserID+`'`)
		if len(names) == 1 && strings.TrimSpace(names[0][0]) != "" && strings.TrimSpace(names[0][1]) != "" {
			add(sqldest.CategoryProbableSamePerson, "person "+u.EdAppUserID+"/"+u.UserID)
		}
		for _, c := range mig.Carried {
			if c.EdAppUserID == u.EdAppUserID {
				add(sqldest.CategoryCompletionSafetyCultureOnly, "completion /"+c.UserID+" "+c.EdAppCourseID+"/"+c.CourseID)
			}
		}
	}
	if u := mig.Planted.EmailChanged; u != nil {
		add(sqldest.CategoryEmailChanged, "person "+u.EdAppUserID+"/"+u.UserID)
	}
	if c := mig.Planted.CourseExternalID; c != nil {
		add(sqldest.CategoryCourseMatchedByTitle, "course "+c.EdAppCourseID+"/"+c.CourseID)
	}
	add(sqldest.CategoryCourseSafetyCultureOnly, "course /"+mig.After.NewCourseID)
	for _, u := range mig.After.Completed {
		edappID := edappIDOf(mig.Users, u)
		if mig.Planted.Unmatched != nil && mig.Planted.Unmatched.UserID == u {
			edappID = "" // SafetyCulture's only
		}
		add(sqldest.CategoryCompletedAfterMove, "completion "+edappID+"/"+u+" /"+mig.After.NewCourseID)
	}
	for _, r := range rowsOf(t, url, `SELECT user_id, course_id FROM course_progress WHERE source = 'edapp' AND completed_date_time IS NOT NULL`) {
		if left[r[0]] {
			add(sqldest.CategoryCompletionMissing, "completion "+r[0]+"/ "+r[1]+"/"+mig.Courses[r[1]]+" cause person_edapp_only")
		}
	}
	for _, c := range mig.Planted.MissingCompletions {
		if !left[c.EdAppUserID] {
			add(sqldest.CategoryCompletionMissing, "completion "+c.EdAppUserID+"/"+c.UserID+" "+c.EdAppCourseID+"/"+c.CourseID)
		}
	}
	scoreLost(t, url, mig, left, add)
	for k, v := range out {
		slices.Sort(v)
		if len(v) == 0 {
			delete(out, k)
		}
	}
	return out
}

// scoreLost adds the carried completions whose EdApp score did not arrive.
func scoreLost(t *testing.T, url string, mig *fakedata.Migration, left map[string]bool, add func(string, string)) {
	scored := map[string]bool{}
	for _, r := range rowsOf(t, url, `SELECT user_id, course_id FROM course_progress WHERE source = 'edapp' AND score > 0`) {
		scored[r[0]+" "+r[1]] = true
	}
	retaken := map[string]bool{} // a retake in SafetyCulture scores the course again
	for _, r := range mig.After.Retakes {
		retaken[r] = true
	}
	for _, c := range mig.Planted.ScoresDropped {
		if scored[c.EdAppUserID+" "+c.EdAppCourseID] && !left[c.EdAppUserID] && !retaken[c.UserID+" "+c.CourseID] {
			add(sqldest.CategoryScoreLost, "completion "+c.EdAppUserID+"/"+c.UserID+" "+c.EdAppCourseID+"/"+c.CourseID)
		}
	}
}

// edappIDOf is the EdApp id that ids maps to scID.
func edappIDOf(ids map[string]string, scID string) string {
	for k, v := range ids {
		if v == scID {
			return k
		}
	}
	return ""
}

// TestMigrateReportFindsThePlantedDifferences: the report of a database
// holding both exports lists, under its category, exactly the differences
// the fake planted (with NoAnomalies, only the people the migration left
// behind and the activity after the move), and its totals add up.
func TestMigrateReportFindsThePlantedDifferences(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]fakedata.MigrationOption{"planted": nil, "no anomalies": {fakedata.NoAnomalies()}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bothDBs(t, func(t *testing.T, url string) {
				srv := migrationFixture(t, 60)
				sc := sctest.New(t)
				mig, err := fakedata.SeedMigration(sc, srv, opts...)
				if err != nil {
					t.Fatal(err)
				}
				exportBoth(t, srv, sc, url)
				rep := reportOf(t, url)
				got, want := diffKeys(rep), plantedDiffs(t, url, mig)
				if name == "planted" && (len(want[sqldest.CategoryCompletionMissing]) == 0 || len(want[sqldest.CategoryScoreLost]) == 0 ||
					len(want[sqldest.CategoryEmailChanged]) == 0 || len(want[sqldest.CategoryCourseMatchedByTitle]) == 0) {
					t.Fatalf("the fake planted nothing to find: %v", want)
				}
				for _, cat := range sqldest.Categories() {
					if !slices.Equal(got[cat], want[cat]) {
						t.Errorf("%s: the report lists\n%v\nthe fake planted\n%v", cat, got[cat], want[cat])
					}
				}
				if rep.MovedAt == nil || rep.MovedAt.After(mig.MovedAt) {
					t.Errorf("moved_at %v, want the latest EdApp activity, by %v", rep.MovedAt, mig.MovedAt)
				}
				wantAddsUp(t, url, rep)
				if u := mig.Planted.EmailChanged; u != nil {
					wantOnePerson(t, url, u)
				}
			})
		})
	}
}

// wantOnePerson checks that the cross-service query of docs/export-database.md counts a
// person whose email changed once, under EdApp's email, with courses
// completed in both services.
func wantOnePerson(t *testing.T, url string, u *fakedata.PersonChange) {
	t.Helper()
	rows := rowsOf(t, url, `SELECT person, COUNT(DISTINCT source) AS services FROM training_completions
WHERE person_id = (SELECT person_id FROM people WHERE edapp_id = '`+u.EdAppUserID+`')
GROUP BY person_id, person, course_identity_id, course`)
	both := 0
	for _, r := range rows {
		if r[0] != u.EdAppEmail {
			t.Errorf("training_completions names %s %q, want %q", u.EdAppUserID, r[0], u.EdAppEmail)
		}
		if r[1] == "2" {
			both++
		}
	}
	if both == 0 {
		t.Errorf("no course of %s counts both services: %v", u.EdAppUserID, rows)
	}
	if got := rowsOf(t, url, `SELECT person, edapp_email, safetyculture_email FROM people WHERE edapp_id = '`+u.EdAppUserID+`'`); len(got) != 1 ||
		got[0][0] != u.EdAppEmail || got[0][1] != u.EdAppEmail || got[0][2] != u.Email {
		t.Errorf("people: %v, want %s, %s, %s", got, u.EdAppEmail, u.EdAppEmail, u.Email)
	}
}

// TestMigrateReportFindsDifferencesPlantedByTheTest: differences the
// fake's own list does not name, planted by rewriting its course-progress
// feed: a completion dropped, one dated a day later, and one person's
// external id given to another (an identity conflict).
func TestMigrateReportFindsDifferencesPlantedByTheTest(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv := migrationFixture(t, 30)
		sc, twin := sctest.New(t), sctest.New(t)
		mig, err := fakedata.SeedMigration(sc, srv, fakedata.NoAnomalies())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fakedata.SeedMigration(twin, srv, fakedata.NoAnomalies()); err != nil {
			t.Fatal(err)
		}
		dropped, moved := mig.Carried[0], mig.Carried[len(mig.Carried)-1]
		var thief, victim string // thief's rows carry victim's external id
		for _, u := range srv.Snapshot().Users {
			if uid := mig.Users[u.ID]; uid != "" && u.ExternalID != "" && uid != dropped.UserID && uid != moved.UserID && hasCompletion(mig, uid) {
				if thief == "" {
					thief = uid
				} else if victim == "" {
					victim = u.ID
					victimExt := u.ExternalID
					sc.Handle("GET /training/v1/feed/training-course-progress", rewriteFeed(t, twin, func(row map[string]any) bool {
						switch {
						case row["user_id"] == dropped.UserID && row["course_id"] == dropped.CourseID:
							return false
						case row["user_id"] == moved.UserID && row["course_id"] == moved.CourseID:
							row["completed_at"] = moved.CompletedAt.AddDate(0, 0, 1).Format("2006-01-02T15:04:05Z")
						case row["user_id"] == thief:
							row["user_external_id"] = victimExt
						}
						return true
					}))
				}
			}
		}
		// A course made in EdApp after the move, and completed there.
		newCourse, newCompletion := plantEdAppOnlyCourse(t, srv, mig, edappIDOf(mig.Users, thief))
		exportBoth(t, srv, sc, url)
		rep := reportOf(t, url)
		got := diffKeys(rep)
		if want := "course " + newCourse + "/"; !slices.Equal(got[sqldest.CategoryCourseEdAppOnly], []string{want}) {
			t.Errorf("course_edapp_only %v, want [%s]", got[sqldest.CategoryCourseEdAppOnly], want)
		}
		if !slices.Contains(got[sqldest.CategoryCompletionMissing], newCompletion) {
			t.Errorf("completion_missing %v lacks %s", got[sqldest.CategoryCompletionMissing], newCompletion)
		}
		if want := "completion " + dropped.EdAppUserID + "/" + dropped.UserID + " " + dropped.EdAppCourseID + "/" + dropped.CourseID; !slices.Contains(got[sqldest.CategoryCompletionMissing], want) {
			t.Errorf("completion_missing %v lacks %s", got[sqldest.CategoryCompletionMissing], want)
		}
		if want := "completion " + moved.EdAppUserID + "/" + moved.UserID + " " + moved.EdAppCourseID + "/" + moved.CourseID; !slices.Equal(got[sqldest.CategoryCompletionDateChanged], []string{want}) {
			t.Errorf("completion_date_changed %v, want [%s]", got[sqldest.CategoryCompletionDateChanged], want)
		}
		if want := "person " + victim + "/"; !slices.Contains(got[sqldest.CategoryIdentityConflict], want) {
			t.Errorf("identity_conflict %v lacks %s", got[sqldest.CategoryIdentityConflict], want)
		}
		causes := 0
		for _, d := range rep.Differences {
			if d.Category == sqldest.CategoryCompletionMissing && d.Cause != nil && *d.Cause == sqldest.CategoryIdentityConflict && deref(d.Person.EdAppID) == victim {
				causes++
			}
		}
		if causes == 0 {
			t.Errorf("no completion of %s is missing for an identity conflict", victim)
		}
		wantAddsUp(t, url, rep)
	})
}

// plantEdAppOnlyCourse adds a course to EdApp only, which learner
// completes; it returns the course's id and the completion as diffKeys
// keys it.
func plantEdAppOnlyCourse(t *testing.T, srv *edapptest.Server, mig *fakedata.Migration, learner string) (string, string) {
	t.Helper()
	courseID, lessonIDs, err := srv.AddCourse(edapptest.CourseSpec{Title: "Ladder Safety", Lessons: []edapptest.LessonSpec{{Title: "Footing"}}})
	if err != nil {
		t.Fatal(err)
	}
	snap := srv.Snapshot()
	for _, u := range snap.Users {
		if u.ID == learner {
			if err := srv.AssignCourse(u.UserGroups[0], courseID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := srv.CompleteLesson(learner, lessonIDs[0], 90); err != nil {
		t.Fatal(err)
	}
	return courseID, "completion " + learner + "/" + mig.Users[learner] + " " + courseID + "/ cause course_edapp_only"
}

func hasCompletion(mig *fakedata.Migration, scUser string) bool {
	return slices.ContainsFunc(mig.Carried, func(c fakedata.Completion) bool { return c.UserID == scUser })
}

// rewriteFeed answers a feed's pages as twin does, each row passed
// through keep (which may change it; false leaves it out).
func rewriteFeed(t *testing.T, twin *sctest.Server, keep func(row map[string]any) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, twin.URL+r.URL.RequestURI(), nil)
		req.Header.Set("Authorization", "Bearer "+twin.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var page map[string]any
		if err := json.Unmarshal(body, &page); err != nil {
			t.Error(err)
			return
		}
		rows, _ := page["data"].([]any)
		kept := []any{}
		for _, row := range rows {
			if m, ok := row.(map[string]any); ok && keep(m) {
				kept = append(kept, m)
			}
		}
		page["data"] = kept
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(page)
	})
}

// TestMigrateReportNeedsBothSources: a database only EdApp was exported
// into is exit 1, naming SafetyCulture.
func TestMigrateReportNeedsBothSources(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 2)
	url := sameKind(t, "sqlite:")
	wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url), exitOK)
	r := runEnv(t, env{}, "migrate", "report", "--db", url)
	wantCode(t, r, exitError)
	if !strings.Contains(r.stderr, "safetyculture") || strings.Contains(r.stderr, "edapp and") {
		t.Errorf("stderr %q does not name the source never exported", r.stderr)
	}
}

// migrationFixture is exportFixture whose learners have an email, the one
// identity SafetyCulture's migration carries: all of them move.
func migrationFixture(t *testing.T, n int) *edapptest.Server {
	t.Helper()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	demo, err := fakedata.SeedDemo(srv)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		id, err := srv.AddUser(edapptest.UserSpec{Username: fmt.Sprintf("learner%03d", i), Email: fmt.Sprintf("learner%03d@example.com", i),
			ExternalID: fmt.Sprintf("L%03d", i), FirstName: "Learner", LastName: fmt.Sprintf("Number %d", i), Groups: []string{demo.GroupIDs[0]}})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range demo.LessonIDs[i%2] {
			if err := srv.CompleteLesson(id, l, float64(60+i%40)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return srv
}
