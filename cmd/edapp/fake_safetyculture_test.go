package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// getSafetyCulture GETs a SafetyCulture path of the fake and decodes it.
func getSafetyCulture(t *testing.T, base, token, path string) map[string]any {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFakeSafetyCultureServesBothServicesOnOnePort: --safetyculture adds
// SafetyCulture's routes beside EdApp's, with the same people.
func TestFakeSafetyCultureServesBothServicesOnOnePort(t *testing.T) {
	t.Parallel()
	base, token, stop := startFake(t, "--seed", "--users", "40", "--attempts", "300", "--safetyculture", "--latency", "1ms")
	c, _ := edapp.NewClient(token, edapp.WithBaseURL(base))
	page, err := c.Users.List(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	edappUsers, _ := page.Total()
	who := getSafetyCulture(t, base, token, "/accounts/user/v1/user:WhoAmI")
	if who["user_id"] == "" || who["organisation_id"] == "" {
		t.Errorf("WhoAmI = %v", who)
	}
	users := getSafetyCulture(t, base, token, "/feed/users?include_inactive=true&limit=1000")
	if n := len(users["data"].([]any)); n != edappUsers {
		t.Errorf("SafetyCulture has %d users, EdApp %d", n, edappUsers)
	}
	progress := getSafetyCulture(t, base, token, "/training/v1/feed/training-course-progress?completion_status=COMPLETION_STATUS_COMPLETED&limit=1000")
	if len(progress["data"].([]any)) == 0 {
		t.Error("no completed course progress")
	}
	if code := stop(); code != exitOK {
		t.Errorf("exit code %d after cancel", code)
	}
}

func TestFakeNoAnomaliesNeedsSafetyCulture(t *testing.T) {
	t.Parallel()
	r := runEnv(t, env{}, "fake", "--no-anomalies")
	wantCode(t, r, exitUsage)
}

func TestWithSafetyCulturePassesOtherPaths(t *testing.T) {
	t.Parallel()
	sc := sctest.New(t)
	other := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := withSafetyCulture(sc, other)
	for path, want := range map[string]int{"/v2/users": http.StatusTeapot, "/feed/users": http.StatusUnauthorized, "/training/courses/v1": http.StatusUnauthorized} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != want {
			t.Errorf("%s: %d, want %d", path, rec.Code, want)
		}
	}
}
