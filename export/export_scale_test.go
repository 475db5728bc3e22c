package export_test

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/edappsrc"
	"github.com/edapp-go/edapp/export/filedest"
)

// kindRoutes are the fake's routes each kind walks; group_members has none
// of its own (it rides on the users walk).
var kindRoutes = map[string]string{
	"users":                  "GET /v2/users",
	"groups":                 "GET /v2/usergroups",
	"group_children":         "GET /v2/usergroups/{id}/children",
	"collections":            "GET /v2/catalog/coursecollections",
	"collection_courses":     "GET /v2/catalog/coursecollections/{id}/courses",
	"courses":                "GET /v2/catalog/courses",
	"lessons":                "GET /v2/catalog/courses/{id}/lessons",
	"course_statistics":      "GET /v2/analytics/coursestatistics",
	"lesson_statistics":      "GET /v2/analytics/lessonstatistics",
	"survey_questions":       "GET /v2/analytics/surveyquestiondefinitions",
	"attempts":               "GET /v2/analytics/attempts",
	"course_progress":        "GET /v2/analytics/courseprogress",
	"lesson_progress_events": "GET /v2/analytics/lesson-progress/events",
	"survey_answers":         "GET /v2/analytics/surveyanswers",
}

// scaleShape is the account these tests run on: the realistic shape's
// structure, scaled down so the tests stay fast, with a page of 50 so
// every single list takes several pages. EDAPP_TEST_ACCOUNT_SCALE=full
// runs the realistic shape itself.
func scaleShape() (fakedata.AccountSpec, int) {
	if os.Getenv("EDAPP_TEST_ACCOUNT_SCALE") == "full" {
		return fakedata.AccountSpec{Users: 5000, Groups: 300, Collections: 20, Courses: 200, Lessons: 8, Attempts: 200_000}, edapp.MaxPageSize
	}
	return fakedata.AccountSpec{Users: 240, Groups: 24, Collections: 4, Courses: 12, Lessons: 3, Attempts: 1500}, 50
}

func scaleServer(t *testing.T) (*edapptest.Server, int) {
	t.Helper()
	srv := edapptest.New(t, edapptest.WithLatency(time.Millisecond))
	t.Cleanup(srv.Close)
	spec, pageSize := scaleShape()
	if err := fakedata.SeedAccount(srv, spec); err != nil {
		t.Fatal(err)
	}
	return srv, pageSize
}

// scaleRun exports every kind into a files destination in dir.
func scaleRun(t *testing.T, srv *edapptest.Server, dir string, opts export.Options) *export.Report {
	t.Helper()
	f, err := filedest.Open(dir, filedest.WithFormat("csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	srv.ResetCounters()
	sum, err := export.Run(context.Background(), edappsrc.New(srv.Client()), opts, f)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func result(sum *export.Report, kind string) export.KindResult {
	for _, r := range sum.Kinds {
		if r.Kind == kind {
			return r
		}
	}
	return export.KindResult{}
}

// TestRunCountsEveryRequestToItsKind: each kind's Requests are the fake's
// count of its routes, at least one for every kind with routes of its
// own; none to a group's users; requests in flight never exceed the
// concurrency; and no walk costs more than its minimum plus one.
func TestRunCountsEveryRequestToItsKind(t *testing.T) {
	t.Parallel()
	srv, pageSize := scaleServer(t)
	sum := scaleRun(t, srv, t.TempDir(), export.Options{PageSize: pageSize, Concurrency: 3})
	if n := srv.RequestCount("/v2/usersgroups/{id}/users"); n != 0 {
		t.Errorf("%d requests to a group's users", n)
	}
	if m := srv.MaxInFlight(); m > 3 {
		t.Errorf("%d requests in flight, concurrency 3", m)
	}
	total := 0
	for _, r := range sum.Kinds {
		total += r.Requests
		if r.Attempts < r.Requests {
			t.Errorf("%s: %d attempts for %d requests", r.Kind, r.Attempts, r.Requests)
		}
		route, ok := kindRoutes[r.Kind]
		if !ok {
			continue
		}
		if got := srv.RequestCount(route); r.Requests != got || got == 0 {
			t.Errorf("%s: %d requests counted, the fake saw %d", r.Kind, r.Requests, got)
		}
	}
	all := 0
	for _, n := range srv.RequestCounts() {
		all += n
	}
	if total != all {
		t.Errorf("%d requests counted to kinds, the fake saw %d", total, all)
	}
	if r := result(sum, "group_members"); r.Requests != 0 || r.Records == 0 {
		t.Errorf("group_members: %d requests, %d records; want none, riding on users", r.Requests, r.Records)
	}
	for _, r := range sum.Kinds {
		if min, walks := minimumRequests(t, srv, r, pageSize); r.Requests > min+walks {
			t.Errorf("%s: %d requests, minimum %d plus one per walk (%d)", r.Kind, r.Requests, min, walks)
		}
	}
}

// TestRunLetsALongWalkUseTheSlotsOthersLeave: the longest walk starts
// while a dozen others share the pool, and still has several pages in
// flight once they leave slots free: a request holds a slot while it is
// sent, not a walk for its whole length.
func TestRunLetsALongWalkUseTheSlotsOthersLeave(t *testing.T) {
	t.Parallel()
	srv, pageSize := scaleServer(t)
	var mu sync.Mutex
	spans := map[string][][2]time.Time{}
	observe := edapp.Observer{Attempt: func(ctx context.Context, e edapp.AttemptEvent) {
		kind, _ := export.KindFromContext(ctx)
		end := time.Now()
		mu.Lock()
		defer mu.Unlock()
		spans[kind] = append(spans[kind], [2]time.Time{end.Add(-e.Duration), end})
	}}
	f, err := filedest.Open(t.TempDir(), filedest.WithFormat("csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := export.Run(context.Background(), edappsrc.New(srv.Client(edapp.WithObserver(observe))), export.Options{PageSize: pageSize, Concurrency: 3}, f); err != nil {
		t.Fatal(err)
	}
	if most := mostAtOnce(spans["lesson_progress_events"]); most < 2 {
		t.Errorf("lesson_progress_events had at most %d page in flight, want the slots the others left", most)
	}
}

// mostAtOnce is the most of spans that overlap at one time.
func mostAtOnce(spans [][2]time.Time) int {
	type edge struct {
		at   time.Time
		step int
	}
	var edges []edge
	for _, s := range spans {
		edges = append(edges, edge{s[0], 1}, edge{s[1], -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.step - b.step // an end before a start at the same time
	})
	now, most := 0, 0
	for _, e := range edges {
		now += e.step
		most = max(most, now)
	}
	return most
}

// minimumRequests is a kind's minimum and its walks: ⌊n ÷ pageSize⌋ + 1
// for a single list of n records, one walk; one request per parent for
// the per-parent kinds here (each list shorter than a page), one walk
// each.
func minimumRequests(t *testing.T, srv *edapptest.Server, r export.KindResult, pageSize int) (min, walks int) {
	var parents int
	switch r.Kind {
	case "group_members":
		return 0, 0
	case "group_children":
		parents = len(groupsWithChildren(t, srv))
	case "collection_courses":
		spec, _ := scaleShape()
		parents = spec.Collections
	case "lessons":
		parents = courseCount(t, srv)
	default:
		return r.Records/pageSize + 1, 1
	}
	return parents, parents
}

// courseCount is the number of courses, one lessons request each.
func courseCount(t *testing.T, srv *edapptest.Server) int {
	n := 0
	for _, err := range srv.Client().Catalog.AllCourses(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

func groupsWithChildren(t *testing.T, srv *edapptest.Server) []string {
	var out []string
	for g, err := range srv.Client().UserGroups.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if g.HasChildren {
			out = append(out, g.ID)
		}
	}
	return out
}

// TestRunGroupMembersAndChildren: group_members holds what the groups'
// users routes answer, group_children the fake's hierarchy, with one
// request per group that has children.
func TestRunGroupMembersAndChildren(t *testing.T) {
	t.Parallel()
	srv, pageSize := scaleServer(t)
	dir := t.TempDir()
	sum := scaleRun(t, srv, dir, export.Options{PageSize: pageSize, Kinds: []string{"group_members", "group_children"}})
	// Without groups and users in the run, each kind walks them itself.
	groupsWalk, childrenRoutes, usersWalk := srv.RequestCount("GET /v2/usergroups"), srv.RequestCount("/v2/usergroups/{id}/children"), srv.RequestCount("/v2/users")
	parents := groupsWithChildren(t, srv)
	if r := result(sum, "group_children"); r.Requests != len(parents)+groupsWalk || childrenRoutes != len(parents) {
		t.Errorf("group_children: %d requests (%d to the children routes), %d groups have children, %d requests to list them",
			r.Requests, childrenRoutes, len(parents), groupsWalk)
	}
	if r := result(sum, "group_members"); r.Requests != usersWalk || r.Requests == 0 {
		t.Errorf("group_members: %d requests, the users walk took %d", r.Requests, usersWalk)
	}
	var members, children []string
	c := srv.Client()
	for g, err := range c.UserGroups.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		for u, err := range c.UserGroups.AllUsers(context.Background(), g.ID, nil) {
			if err != nil {
				t.Fatal(err)
			}
			members = append(members, g.ID+" "+u.ID+" "+u.ExternalID)
		}
		for k, err := range c.UserGroups.AllChildren(context.Background(), g.ID, nil) {
			if err != nil {
				t.Fatal(err)
			}
			children = append(children, g.ID+" "+k.ID)
		}
	}
	if got := csvRows(t, dir, "group_members"); !slices.Equal(got, sorted(members)) || len(got) == 0 {
		t.Errorf("group_members: %d rows, the groups' users routes answer %d", len(got), len(members))
	}
	if got := csvRows(t, dir, "group_children"); !slices.Equal(got, sorted(children)) || len(got) == 0 {
		t.Errorf("group_children: %d rows, the fake's hierarchy has %d", len(got), len(children))
	}
}

// TestRunAgainWithNothingNew: a re-run sends the mirrored kinds' walks
// again, request for request, and one page for each incremental kind's
// overlap; with MaxAge only the incremental kinds' requests.
func TestRunAgainWithNothingNew(t *testing.T) {
	t.Parallel()
	srv, pageSize := scaleServer(t)
	dir := t.TempDir()
	first := scaleRun(t, srv, dir, export.Options{PageSize: pageSize})
	again := scaleRun(t, srv, dir, export.Options{PageSize: pageSize})
	kinds := map[string]export.Kind{}
	for _, k := range edappsrc.Kinds() {
		kinds[k.Name] = k
	}
	for i, r := range again.Kinds {
		want := first.Kinds[i].Requests
		if kinds[r.Kind].Incremental {
			want = r.Records/pageSize + 1
		}
		if r.Requests != want {
			t.Errorf("%s: %d requests again, want %d", r.Kind, r.Requests, want)
		}
	}
	fresh := scaleRun(t, srv, dir, export.Options{PageSize: pageSize, MaxAge: time.Hour})
	incremental := 0
	for _, r := range fresh.Kinds {
		k := kinds[r.Kind]
		if k.Incremental {
			incremental += r.Requests
			continue
		}
		if !r.Skipped || r.Requests != 0 || r.Fetched.IsZero() {
			t.Errorf("%s with MaxAge: skipped %v, %d requests, fetched %v", r.Kind, r.Skipped, r.Requests, r.Fetched)
		}
	}
	all := 0
	for _, n := range srv.RequestCounts() {
		all += n
	}
	if all != incremental || all == 0 {
		t.Errorf("with MaxAge the fake saw %d requests, the incremental kinds sent %d", all, incremental)
	}
	full := scaleRun(t, srv, dir, export.Options{PageSize: pageSize, MaxAge: time.Hour, Full: true, Kinds: []string{"courses"}})
	if r := full.Kinds[0]; r.Skipped || r.Requests == 0 {
		t.Errorf("courses with Full and MaxAge: skipped %v, %d requests", r.Skipped, r.Requests)
	}
}

// csvRows reads a mirrored kind's CSV file: its rows, cells joined by a
// space, sorted.
func csvRows(t *testing.T, dir, kind string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, kind+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("%s: %v", kind, err)
	}
	var out []string
	for _, row := range rows[1:] {
		out = append(out, strings.Join(row, " "))
	}
	return sorted(out)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
