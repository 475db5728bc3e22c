package fakedata_test

import "testing"

// TestSeedMigrationContentOfTheNewCourse checks that every read with no
// EdApp source has rows after SeedMigration: the learning path, the
// survey and its answers, the rapid refresh's answers, and the slides'
// statistics, overall and per person who completed the new course.
func TestSeedMigrationContentOfTheNewCourse(t *testing.T) {
	t.Parallel()
	s, m := migrated(t, edappAccount(t))
	a := m.After
	path := get(t, s, "/training/paths/v1/"+a.PathID)
	if courses, _ := path.body["courses"].([]any); len(courses) != 2 {
		t.Errorf("path %s: %s", a.PathID, path.raw)
	}
	n := len(a.Completed)
	for read, want := range map[string]int{
		"surveys/questionDefinitions":                    1,
		"surveys/answers":                                n,
		"rapidRefresh/answers":                           n,
		"slides/statistics":                              3,
		"users/" + a.Completed[0] + "/slides/statistics": 3,
	} {
		if rows, _ := drain(t, s, "/training/analytics/v1/"+read+"?pageSize=1000"); len(rows) != want {
			t.Errorf("%s: %d rows, want %d", read, len(rows), want)
		}
	}
	if rows, _ := drain(t, s, "/training/analytics/v1/lessons/progress/events?pageSize=1000"); len(rows) < 3*n {
		t.Errorf("%d lesson progress events, want at least %d", len(rows), 3*n)
	}
	if got := get(t, s, "/training/rapid-refresh/v1/"+a.RapidRefreshID); got.status != 200 {
		t.Errorf("rapid refresh %s not served", a.RapidRefreshID)
	}
}
