package fakedata_test

import (
	"errors"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

var (
	userID   = regexp.MustCompile(`^user_[0-9a-f]{32}$`)
	courseID = regexp.MustCompile(`^[0-9a-f]{24}$`)
)

// edappAccount is an EdApp fake with the demo and a synthetic account,
// on a fixed clock.
func edappAccount(t *testing.T) *edapptest.Server {
	t.Helper()
	moved := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	e := edapptest.New(t, edapptest.WithClock(func() time.Time { return moved }))
	_, err := fakedata.SeedDemo(e)
	noErr(t, err)
	noErr(t, fakedata.SeedAccount(e, fakedata.AccountSpec{Users: 150, Groups: 9, Collections: 2, Courses: 6, Lessons: 3, Attempts: 2000}))
	return e
}

func migrated(t *testing.T, e *edapptest.Server, opts ...fakedata.MigrationOption) (*sctest.Server, *fakedata.Migration) {
	t.Helper()
	s := sctest.New(t)
	m, err := fakedata.SeedMigration(s, e, opts...)
	noErr(t, err)
	return s, m
}

// progressByPair reads the whole course-progress feed by "user course".
func progressByPair(t *testing.T, s *sctest.Server) map[string]map[string]any {
	rows, _ := drain(t, s, "/training/v1/feed/training-course-progress?limit=1000")
	out := map[string]map[string]any{}
	for _, r := range rows {
		out[r["user_id"].(string)+" "+r["course_id"].(string)] = r
	}
	return out
}

func TestSeedMigrationNoAnomaliesIsAFaithfulCopy(t *testing.T) {
	t.Parallel()
	e := edappAccount(t)
	s, m := migrated(t, e, fakedata.NoAnomalies())
	snap := e.Snapshot()
	if !reflect.DeepEqual(m.Planted, fakedata.Planted{}) {
		t.Errorf("planted with NoAnomalies: %+v", m.Planted)
	}
	users, _ := drain(t, s, "/feed/users?include_inactive=true&limit=1000")
	byEmail := map[string]map[string]any{}
	for _, u := range users {
		byEmail[u["email"].(string)] = u
	}
	for _, u := range snap.Users {
		got := byEmail[u.Email]
		if got == nil || got["id"] != m.Users[u.ID] || !userID.MatchString(m.Users[u.ID]) {
			t.Fatalf("EdApp user %s (%s): migrated as %v", u.ID, u.Email, got)
		}
	}
	rows := progressByPair(t, s)
	completed := 0
	for _, p := range snap.Progress {
		if p.CompletedDateTime.Time.IsZero() {
			continue
		}
		completed++
		row := rows[m.Users[p.UserID]+" "+m.Courses[p.CourseID]]
		if row == nil || row["completed_at"] != p.CompletedDateTime.Time.UTC().Format("2006-01-02T15:04:05.000Z") {
			t.Fatalf("completion %s/%s: row %v", p.UserID, p.CourseID, row)
		}
	}
	if completed == 0 || len(m.Carried) != completed {
		t.Errorf("carried %d of %d completions", len(m.Carried), completed)
	}
	courses := get(t, s, "/training/courses/v1?pageSize=1000").items()
	if len(courses) != len(snap.Courses)+1 {
		t.Errorf("%d courses, want %d and the new one", len(courses), len(snap.Courses))
	}
	for _, c := range courses {
		if !courseID.MatchString(c["id"].(string)) {
			t.Errorf("course id %v", c["id"])
		}
	}
}

func TestSeedMigrationPlantsExactlyTheListedDifferences(t *testing.T) {
	t.Parallel()
	e := edappAccount(t)
	s, m := migrated(t, e)
	snap := e.Snapshot()
	pl := m.Planted
	if pl.Unmatched == nil || pl.EmailChanged == nil || pl.CourseExternalID == nil || len(pl.MissingCompletions) == 0 {
		t.Fatalf("planted = %+v", pl)
	}
	// Match people as a comparison would: by email, then by external id.
	users, _ := drain(t, s, "/feed/users?include_inactive=true&limit=1000")
	byEmail, byExt := map[string]string{}, map[string]string{}
	for _, u := range users {
		byEmail[u["email"].(string)] = u["id"].(string)
	}
	for _, r := range progressByPair(t, s) {
		if ext := r["user_external_id"].(string); ext != "" {
			byExt[ext] = r["user_id"].(string)
		}
	}
	var unmatched, byExtOnly []string
	for _, u := range snap.Users {
		switch {
		case byEmail[u.Email] != "":
		case u.ExternalID != "" && byExt[u.ExternalID] != "":
			byExtOnly = append(byExtOnly, u.ID)
		default:
			unmatched = append(unmatched, u.ID)
		}
	}
	if len(unmatched) != 1 || unmatched[0] != pl.Unmatched.EdAppUserID {
		t.Errorf("unmatched people %v, want exactly %s", unmatched, pl.Unmatched.EdAppUserID)
	}
	if len(byExtOnly) > 1 || (len(byExtOnly) == 1 && byExtOnly[0] != pl.EmailChanged.EdAppUserID) {
		t.Errorf("matched by external id only: %v, want at most %s", byExtOnly, pl.EmailChanged.EdAppUserID)
	}
	checkCompletions(t, s, m, snap)
	checkCourseExternalIDs(t, s, m, snap)
}

func checkCompletions(t *testing.T, s *sctest.Server, m *fakedata.Migration, snap edapptest.Snapshot) {
	t.Helper()
	rows := progressByPair(t, s)
	completed := 0
	for _, p := range snap.Progress {
		if !p.CompletedDateTime.Time.IsZero() {
			completed++
		}
	}
	if want := max(1, (completed+25)/50); len(m.Planted.MissingCompletions) != want {
		t.Errorf("%d missing completions of %d, want %d", len(m.Planted.MissingCompletions), completed, want)
	}
	for _, c := range m.Planted.MissingCompletions {
		if rows[c.UserID+" "+c.CourseID] != nil {
			t.Errorf("missing completion %+v is in the feed", c)
		}
	}
	if len(m.Planted.ScoresDropped) != len(m.Carried) || len(m.Carried)+len(m.Planted.MissingCompletions) != completed {
		t.Errorf("carried %d, scores dropped %d, missing %d, EdApp completions %d", len(m.Carried),
			len(m.Planted.ScoresDropped), len(m.Planted.MissingCompletions), completed)
	}
	retaken := map[string]bool{}
	for _, r := range m.After.Retakes {
		retaken[r] = true
	}
	for _, c := range m.Planted.ScoresDropped {
		row := rows[c.UserID+" "+c.CourseID]
		if row == nil || row["progress_percent"] != float64(100) || (!retaken[c.UserID+" "+c.CourseID] && row["score"] != float64(0)) {
			t.Fatalf("carried completion %+v: row %v", c, row)
		}
	}
}

func checkCourseExternalIDs(t *testing.T, s *sctest.Server, m *fakedata.Migration, snap edapptest.Snapshot) {
	t.Helper()
	ext := map[string]string{}
	for _, c := range get(t, s, "/training/courses/v1?pageSize=1000").items() {
		ext[c["id"].(string)] = c["externalId"].(string)
	}
	var differ []string
	for _, c := range snap.Courses {
		if ext[m.Courses[c.ID]] != c.ExternalID {
			differ = append(differ, c.ID)
		}
	}
	if len(differ) != 1 || differ[0] != m.Planted.CourseExternalID.EdAppCourseID || ext[m.Planted.CourseExternalID.CourseID] != m.Planted.CourseExternalID.ExternalID {
		t.Errorf("courses whose external id differs: %v, want %+v", differ, m.Planted.CourseExternalID)
	}
}

func TestSeedMigrationIsDeterministic(t *testing.T) {
	t.Parallel()
	s1, m1 := migrated(t, edappAccount(t))
	s2, m2 := migrated(t, edappAccount(t))
	if !reflect.DeepEqual(m1, m2) {
		t.Fatal("two migrations of the same account differ")
	}
	for _, path := range []string{"/training/v1/feed/training-course-progress?limit=1000", "/feed/users?include_inactive=true&limit=1000", "/feed/sites?include_deleted=true", "/feed/group_users?limit=1000"} {
		r1, _ := drain(t, s1, path)
		r2, _ := drain(t, s2, path)
		if !reflect.DeepEqual(r1, r2) {
			t.Errorf("%s differs between two migrations of the same account", path)
		}
	}
	_, m3 := migrated(t, edappAccount(t), fakedata.WithMigrationSeed("2"))
	if reflect.DeepEqual(m1.Users, m3.Users) {
		t.Error("another seed gave the same ids")
	}
	s4 := sctest.New(t)
	if _, err := fakedata.SeedMigration(s4, edapptest.New(t), nil, fakedata.WithMigrationSeed("")); !errors.Is(err, edapp.ErrInvalidInput) {
		t.Errorf("an empty seed: %v, want an ErrInvalidInput", err)
	}
}

func TestSeedMigrationActivityAfterTheMove(t *testing.T) {
	t.Parallel()
	s, m := migrated(t, edappAccount(t))
	a := m.After
	if a.NewCourseID == "" || len(a.Completed) == 0 || len(a.InProgress) == 0 || len(a.Retakes) == 0 || len(a.Deactivated) == 0 {
		t.Fatalf("after the move: %+v", a)
	}
	rows, _ := drain(t, s, "/training/v1/feed/training-course-progress?completion_status=COMPLETION_STATUS_COMPLETED&courseId="+a.NewCourseID)
	if len(rows) != len(a.Completed) {
		t.Errorf("new course: %d completed rows, want %d", len(rows), len(a.Completed))
	}
	for _, r := range rows {
		if at, _ := time.Parse(time.RFC3339, r["completed_at"].(string)); !at.After(m.MovedAt) {
			t.Errorf("completed at %v, not after the move %v", at, m.MovedAt)
		}
	}
	active, _ := drain(t, s, "/feed/users?limit=1000")
	all, _ := drain(t, s, "/feed/users?include_inactive=true&limit=1000")
	if len(all)-len(active) != len(a.Deactivated) {
		t.Errorf("%d active of %d users, want %d deactivated", len(active), len(all), len(a.Deactivated))
	}
	if leaf, _ := drain(t, s, "/feed/sites?show_only_leaf_nodes=true"); len(leaf) == 0 || len(leaf) >= len(m.Sites) {
		t.Errorf("%d leaf sites of %d", len(leaf), len(m.Sites))
	}
	who := get(t, s, "/accounts/user/v1/user:WhoAmI")
	if who.body["user_id"] == "" || who.body["organisation_id"] != s.OrganisationID() {
		t.Errorf("WhoAmI = %s", who.raw)
	}
}

func TestSeedMigrationNeedsAnEmptyFake(t *testing.T) {
	t.Parallel()
	s := sctest.New(t)
	must[string](t)(s.AddUser(sctest.UserSpec{Email: "x@example.com"}))
	if _, err := fakedata.SeedMigration(s, edappAccount(t)); !errors.Is(err, sctest.ErrConflict) {
		t.Errorf("err = %v, want ErrConflict", err)
	}
}

// TestSeedMigrationStaysInThePast: with both fakes on the real clock (as
// edapp fake --safetyculture runs them), no record SeedMigration makes is
// dated after the fake's clock.
func TestSeedMigrationStaysInThePast(t *testing.T) {
	t.Parallel()
	e := edapptest.New(t)
	_, err := fakedata.SeedDemo(e)
	noErr(t, err)
	noErr(t, fakedata.SeedAccount(e, fakedata.AccountSpec{Users: 150, Groups: 9, Collections: 2, Courses: 6, Lessons: 3, Attempts: 2000}))
	s, m := migrated(t, e)
	now := time.Now()
	if !m.MovedAt.Before(now) {
		t.Errorf("moved at %v, not before now %v", m.MovedAt, now)
	}
	dated := 0
	for _, path := range []string{
		"/training/v1/feed/training-course-progress?completion_status=COMPLETION_STATUS_ALL",
		"/feed/users?include_inactive=true&limit=1000",
		"/training/courses/v1?pageSize=1000",
		"/training/analytics/v1/lessons/attempts?pageSize=1000",
		"/training/analytics/v1/lessons/progress/events?pageSize=1000",
		"/training/analytics/v1/surveys/answers?pageSize=1000",
	} {
		rows, _ := drain(t, s, path)
		for _, r := range rows {
			for k, v := range r {
				str, _ := v.(string)
				at, err := time.Parse(time.RFC3339, str)
				if err != nil {
					continue
				}
				dated++
				if at.After(now) {
					t.Errorf("%s: %s %v is after the fake's clock %v", path, k, at, now)
				}
			}
		}
	}
	if dated == 0 {
		t.Fatal("no dated record read")
	}
}
