package sctest_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/safetyculture/sctest"
)

func TestFeedUsersFollowsNextPageAndLeavesInactiveOut(t *testing.T) {
	t.Parallel()
	s := sctest.New(t)
	for i := range 250 {
		must[string](t)(s.AddUser(sctest.UserSpec{Email: fmt.Sprintf("u%03d@example.com", i), Inactive: i%50 == 7}))
	}
	a := get(t, s, "/feed/users?limit=100")
	next := a.nextPage()
	u, err := url.Parse(next)
	if err != nil || u.IsAbs() || u.Path != "/feed/users" || u.Query().Get("cursor") == "" || u.Query().Get("limit") != "100" {
		t.Fatalf("next_page %q: want a relative path carrying its cursor and limit", next)
	}
	if meta := a.body["metadata"].(map[string]any); meta["remaining_records"] != float64(145) {
		t.Errorf("remaining_records = %v, want 145", meta["remaining_records"])
	}
	rows, pages := drain(t, s, "/feed/users?limit=100")
	if len(rows) != 245 || pages != 3 {
		t.Errorf("active users: %d rows in %d pages, want 245 in 3", len(rows), pages)
	}
	for _, r := range rows {
		if r["active"] != true {
			t.Fatalf("inactive user listed: %v", r)
		}
	}
	if rows, _ := drain(t, s, "/feed/users?include_inactive=true"); len(rows) != 250 {
		t.Errorf("include_inactive=true: %d rows, want 250", len(rows))
	}
}

func TestFeedSitesHonoursLeafOnlyAndDeleted(t *testing.T) {
	t.Parallel()
	s := sctest.New(t)
	must[string](t)(s.AddUser(sctest.UserSpec{Email: "a@example.com"}))
	root := must[string](t)(s.AddSite(sctest.SiteSpec{Name: "Region", MetaLabel: "region"}))
	mid := must[string](t)(s.AddSite(sctest.SiteSpec{Name: "Area", ParentID: root}))
	leaf := must[string](t)(s.AddSite(sctest.SiteSpec{Name: "Store", ParentID: mid}))
	gone := must[string](t)(s.AddSite(sctest.SiteSpec{Name: "Closed", ParentID: leaf, Deleted: true}))
	ids := func(q string) string {
		rows, _ := drain(t, s, "/feed/sites"+q)
		var out []string
		for _, r := range rows {
			out = append(out, r["id"].(string))
		}
		return strings.Join(out, ",")
	}
	for q, want := range map[string]string{
		"":                           strings.Join([]string{root, mid, leaf}, ","),
		"?show_only_leaf_nodes=true": leaf,
		"?include_deleted=true":      strings.Join([]string{root, mid, leaf, gone}, ","),
		"?include_deleted=true&show_only_leaf_nodes=true": gone,
	} {
		if got := ids(q); got != want {
			t.Errorf("/feed/sites%s = %s, want %s", q, got, want)
		}
	}
	rows, _ := drain(t, s, "/feed/sites")
	if parent := rows[1]["parent_id"]; parent != rows[0]["site_uuid"] || rows[0]["parent_id"] != nil {
		t.Errorf("parent_id = %v, want the parent's site_uuid %v (and null at the top)", parent, rows[0]["site_uuid"])
	}
}

// progressFixture is a fake with three people in one course: one
// completed, one in progress, one completed later.
func progressFixture(t *testing.T, opts ...sctest.Option) (s *sctest.Server, course string, users []string) {
	s = sctest.New(t, opts...)
	course, lessons, err := s.AddCourse(sctest.CourseSpec{Title: "Forklift", ExternalID: "FL-1",
		Lessons: []sctest.LessonSpec{{Title: "One"}, {Title: "Two"}}})
	noErr(t, err)
	day := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		users = append(users, must[string](t)(s.AddUser(sctest.UserSpec{Email: fmt.Sprintf("p%d@example.com", i), ExternalID: fmt.Sprintf("EXT-%d", i)})))
	}
	for _, l := range lessons {
		noErr(t, s.CompleteLesson(users[0], l, 80, day))
		noErr(t, s.CompleteLesson(users[2], l, 90, day.Add(48*time.Hour)))
	}
	noErr(t, s.OpenLesson(users[1], lessons[0], day.Add(24*time.Hour)))
	return s, course, users
}

func TestFeedCourseProgressFilters(t *testing.T) {
	t.Parallel()
	s, course, users := progressFixture(t)
	base := "/training/v1/feed/training-course-progress?"
	for q, want := range map[string]int{
		"": 3,
		"completion_status=COMPLETION_STATUS_COMPLETED":     2,
		"completion_status=COMPLETION_STATUS_NON_COMPLETED": 1,
		"completion_status=COMPLETION_STATUS_ALL":           3,
		"modifiedAfter=2026-10-02T12:00:00Z":                1,
		"courseId=" + course + "&userId=" + users[1]:        1,
		"userId=nobody": 0,
		"limit=1&completion_status=COMPLETION_STATUS_COMPLETED": 2,
	} {
		rows, _ := drain(t, s, base+q)
		if len(rows) != want {
			t.Errorf("%s: %d rows, want %d", q, len(rows), want)
		}
	}
	if got := s.CourseProgressCount(sctest.CompletionCompleted); got != 2 {
		t.Errorf("CourseProgressCount(completed) = %d, want 2", got)
	}
}

func TestFeedCourseProgressRow(t *testing.T) {
	t.Parallel()
	s, course, users := progressFixture(t)
	a := get(t, s, "/training/v1/feed/training-course-progress?limit=1")
	meta := a.body["metadata"].(map[string]any)
	if _, has := meta["remaining_records"]; has || meta["next_page_token"] == nil || a.nextPage() == "" {
		t.Errorf("metadata = %v: want next_page and next_page_token, no remaining_records", meta)
	}
	row := a.items()[0]
	want := map[string]any{"course_id": course, "course_external_id": "FL-1", "course_title": "Forklift",
		"user_id": users[0], "user_email": "p0@example.com", "user_external_id": "EXT-0", "total_lessons": float64(2),
		"completed_lessons": float64(2), "progress_percent": float64(100), "score": float64(80),
		"completed_at": "2026-10-01T00:00:00.000Z", "opened_at": "2026-09-30T23:50:00.000Z", "due_at": ""}
	for k, v := range want {
		if row[k] != v {
			t.Errorf("%s = %v, want %v", k, row[k], v)
		}
	}
}

func TestFeedGroupsAndMembers(t *testing.T) {
	t.Parallel()
	s := sctest.New(t)
	uid := must[string](t)(s.AddUser(sctest.UserSpec{Email: "a@example.com"}))
	gid := must[string](t)(s.AddGroup("", "Night shift"))
	sid := must[string](t)(s.AddSite(sctest.SiteSpec{Name: "Depot"}))
	noErr(t, s.AddGroupUser(gid, uid))
	noErr(t, s.AddGroupUser(gid, uid))
	noErr(t, s.AddSiteMember(sid, uid))
	groups, _ := drain(t, s, "/feed/groups")
	members, _ := drain(t, s, "/feed/group_users")
	sites, _ := drain(t, s, "/feed/site_members")
	if len(groups) != 1 || groups[0]["id"] != gid || groups[0]["name"] != "Night shift" || groups[0]["organisation_id"] != s.OrganisationID() {
		t.Errorf("groups = %v", groups)
	}
	if len(members) != 1 || members[0]["user_id"] != uid || members[0]["group_id"] != gid {
		t.Errorf("group_users = %v", members)
	}
	if len(sites) != 1 || sites[0]["site_id"] != sid || sites[0]["member_id"] != uid {
		t.Errorf("site_members = %v", sites)
	}
	if err := s.AddGroupUser("role_nope", uid); err == nil {
		t.Error("AddGroupUser with an unknown group: no error")
	}
}
