package sctest_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// The fixtures in testdata/vendor are written in the shapes SafetyCulture's
// exporter decodes (its feed models and WhoAmI), with every field it
// reads. The fake must answer every one of those fields, so that the
// exporter can run against it.

// vendorFixture is a fake holding one of everything the exporter reads.
func vendorFixture(t *testing.T) *sctest.Server {
	s := sctest.New(t)
	uid := must[string](t)(s.AddUser(sctest.UserSpec{Email: "priya.raman@example.com", FirstName: "Priya", LastName: "Raman",
		ExternalID: "EMP-0042", LastSeenAt: time.Date(2026, 10, 14, 8, 12, 40, 0, time.UTC)}))
	must[string](t)(s.AddUser(sctest.UserSpec{Email: "second@example.com"}))
	gid := must[string](t)(s.AddGroup("", "Warehouse"))
	noErr(t, s.AddGroupUser(gid, uid))
	parent := must[string](t)(s.AddSite(sctest.SiteSpec{Name: "North", MetaLabel: "area"}))
	site := must[string](t)(s.AddSite(sctest.SiteSpec{Name: "North depot", ParentID: parent}))
	noErr(t, s.AddSiteMember(site, uid))
	cid, lids, err := s.AddCourse(sctest.CourseSpec{Title: "Manual Handling", ExternalID: "HS-204", Lessons: []sctest.LessonSpec{{Title: "Lift"}}})
	noErr(t, err)
	noErr(t, s.CompleteLesson(uid, lids[0], 85, time.Time{}))
	noErr(t, s.SetCourseProgress(sctest.ProgressSpec{UserID: must[string](t)(s.AddUser(sctest.UserSpec{Email: "third@example.com"})),
		CourseID: cid, CompletedAt: time.Date(2026, 9, 2, 3, 40, 0, 0, time.UTC)}))
	return s
}

func TestFakeAnswersEveryFieldTheVendorExporterReads(t *testing.T) {
	t.Parallel()
	s := vendorFixture(t)
	for file, path := range map[string]string{
		"whoami.json":                        "/accounts/user/v1/user:WhoAmI",
		"feed_users.json":                    "/feed/users?limit=1",
		"feed_groups.json":                   "/feed/groups",
		"feed_group_users.json":              "/feed/group_users",
		"feed_sites.json":                    "/feed/sites?show_only_leaf_nodes=false",
		"feed_site_members.json":             "/feed/site_members",
		"feed_training_course_progress.json": "/training/v1/feed/training-course-progress?completion_status=COMPLETION_STATUS_COMPLETED&limit=1",
	} {
		raw, err := os.ReadFile(filepath.Join("testdata", "vendor", file))
		noErr(t, err)
		var want map[string]any
		noErr(t, json.Unmarshal(raw, &want))
		got := get(t, s, path).body
		if file == "whoami.json" {
			sameKeys(t, file, want, got)
			continue
		}
		sameKeys(t, file+" metadata", want["metadata"].(map[string]any), got["metadata"].(map[string]any))
		sameKeys(t, file+" row", want["data"].([]any)[0].(map[string]any), got["data"].([]any)[1%len(got["data"].([]any))].(map[string]any))
	}
}

func sameKeys(t *testing.T, what string, want, got map[string]any) {
	t.Helper()
	w, g := slices.Sorted(maps.Keys(want)), slices.Sorted(maps.Keys(got))
	if !slices.Equal(w, g) {
		t.Errorf("%s: the fake answers %v, the vendor's shape has %v", what, g, w)
	}
}
