package export

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// TestSafetyCultureKindsColumnsAreTheirTables is
// TestKindsColumnsAreTheirTables for SafetyCulture's kinds: the columns
// that say SafetyCulture fills them are exactly those its kinds write.
func TestSafetyCultureKindsColumnsAreTheirTables(t *testing.T) {
	t.Parallel()
	checkKindsColumns(t, SafetyCultureKinds(), SourceSafetyCulture)
}

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

// TestRunSafetyCultureRefetchesAnalyticsFromTheCursorLessTheOverlap: the
// date-filtered analytics kinds are incremental as attempts are: a first
// run sends no date filter, and the next sends each kind's from its
// cursor, the start of the first run by the service's clock, less
// SafetyCultureOverlap.
func TestRunSafetyCultureRefetchesAnalyticsFromTheCursorLessTheOverlap(t *testing.T) {
	t.Parallel()
	fake, err := sctest.NewUnstarted()
	if err != nil {
		t.Fatal(err)
	}
	url, sent := dateFiltersSent(t, fake)
	c, err := safetyculture.NewClient(fake.Token, edapp.WithBaseURL(url))
	if err != nil {
		t.Fatal(err)
	}
	files, err := OpenFiles(t.TempDir(), "csv", false)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{"attempts": "/training/analytics/v1/lessons/attempts",
		"lesson_progress_events": "/training/analytics/v1/lessons/progress/events", "survey_answers": "/training/analytics/v1/surveys/answers"}
	opts := Options{Kinds: slices.Collect(maps.Keys(paths))}
	var starts [2]time.Time
	for run := range starts {
		starts[run] = time.Now()
		if _, err := RunSafetyCulture(context.Background(), c, opts, files); err != nil {
			t.Fatal(err)
		}
		for kind, path := range paths {
			got := sent(path)
			if run == 0 && got != "" {
				t.Errorf("%s: the first run sent a date filter %q", kind, got)
			}
			from, err := time.Parse(time.RFC3339, got)
			if run == 1 && (err != nil || from.Before(starts[0].Add(-SafetyCultureOverlap-time.Second)) || from.After(starts[1].Add(-SafetyCultureOverlap))) {
				t.Errorf("%s: the second run sent %q, want the first's start %v less %v", kind, got, starts[0].UTC(), SafetyCultureOverlap)
			}
		}
	}
}

// dateFiltersSent serves fake at the returned address, and reports the
// date filter (startDateTime or minEventDateTime) of a path's last request.
func dateFiltersSent(t *testing.T, fake *sctest.Server) (string, func(path string) string) {
	var mu sync.Mutex
	sent := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		mu.Lock()
		sent[r.URL.Path] = q.Get("startDateTime") + q.Get("minEventDateTime")
		mu.Unlock()
		fake.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func(path string) string {
		mu.Lock()
		defer mu.Unlock()
		return sent[path]
	}
}
