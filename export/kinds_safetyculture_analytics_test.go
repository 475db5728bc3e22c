package export_test

import (
	"slices"
	"testing"

	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/scsrc"
)

// TestSafetyCultureKindsOverlapAndPerUser checks the rules the
// SafetyCulture kinds share: every incremental one is fetched again from
// scsrc.Overlap before its cursor, and the per-user reads run only
// with PerUser.
func TestSafetyCultureKindsOverlapAndPerUser(t *testing.T) {
	t.Parallel()
	perUser := []string{"user_lesson_progress", "user_lesson_progress_events", "user_slide_statistics"}
	for _, k := range scsrc.Kinds() {
		if k.Incremental && k.Name != "course_progress" && k.Overlap != scsrc.Overlap {
			t.Errorf("%s: overlap %v, want %v", k.Name, k.Overlap, scsrc.Overlap)
		}
		if k.PerUser != slices.Contains(perUser, k.Name) {
			t.Errorf("%s: PerUser %v", k.Name, k.PerUser)
		}
	}
	got, err := export.SelectKinds(scsrc.Kinds(), export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range got {
		if k.PerUser {
			t.Errorf("%s runs without PerUser", k.Name)
		}
	}
	if _, err := export.SelectKinds(scsrc.Kinds(), export.Options{Kinds: []string{"user_slide_statistics"}}); err == nil {
		t.Error("user_slide_statistics asked for without PerUser: no error")
	}
}
