package export

import (
	"slices"
	"testing"
)

// TestSafetyCultureKindsOverlapAndPerUser checks the rules the
// SafetyCulture kinds share: every incremental one is fetched again from
// SafetyCultureOverlap before its cursor, and the per-user reads run only
// with PerUser.
func TestSafetyCultureKindsOverlapAndPerUser(t *testing.T) {
	t.Parallel()
	perUser := []string{"user_lesson_progress", "user_lesson_progress_events", "user_slide_statistics"}
	for _, k := range SafetyCultureKinds() {
		if k.Incremental && k.Name != "course_progress" && k.overlap() != SafetyCultureOverlap {
			t.Errorf("%s: overlap %v, want %v", k.Name, k.overlap(), SafetyCultureOverlap)
		}
		if k.PerUser != slices.Contains(perUser, k.Name) {
			t.Errorf("%s: PerUser %v", k.Name, k.PerUser)
		}
	}
	got, err := selectKinds(scKinds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range got {
		if k.PerUser {
			t.Errorf("%s runs without PerUser", k.Name)
		}
	}
	if _, err := selectKinds(scKinds, Options{Kinds: []string{"user_slide_statistics"}}); err == nil {
		t.Error("user_slide_statistics asked for without PerUser: no error")
	}
}
