package main

// Tests that drive headless Chromium against the fake's learner pages. They
// live in this module, not the SDK's, so that importers of the SDK never
// inherit chromedp.

import (
	"bytes"
	"context"
	"flag"
	"image"
	"image/png"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/cmd/edapp/internal/fakeserve"
	"github.com/edapp-go/edapp/edapptest"
	v1 "github.com/edapp-go/edapp/v1"
	"github.com/edapp-go/edapp/webhook"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "rewrite docs/launch-page.png from the launch page in headless Chromium")

// screenshotPath is the launch page's picture in docs/testing.md, from this
// module's directory.
const screenshotPath = "../../docs/launch-page.png"

// chromiumNames are the commands looked for, in order.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}

// browser starts headless Chromium for one test, bounded by timeout. Without
// Chromium the test skips, or fails when CI is set.
func browser(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	path := ""
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		msg := "Chromium not found (looked for " + strings.Join(chromiumNames, ", ") +
			"); install it to run the browser tests, e.g. apt-get install -y chromium"
		skipMissing(t, msg)
	}
	// Chromium's helper processes may still write to the profile for a
	// moment after the browser is gone, so the test removes it itself,
	// trying again briefly, rather than through t.TempDir.
	profile, err := os.MkdirTemp("", "edapp-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	actx, acancel := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(800, 600),
	)
	bctx, bcancel := chromedp.NewContext(actx, chromedp.WithErrorf(browserError))
	t.Cleanup(func() {
		bcancel()
		acancel()
		cancel()
		for range 100 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Logf("could not remove the browser profile %s", profile)
	})
	return bctx
}

// browserError logs chromedp's errors, except for events it cannot decode:
// chromedp v0.13 (the newest for the module's go 1.24 line) predates some
// values that current Chromium sends, and skips those events.
func browserError(format string, args ...any) {
	if strings.HasPrefix(format, "could not unmarshal event") {
		return
	}
	log.Printf(format, args...)
}

// learner seeds a course of two lessons, assigned to a group with a learner
// in it, and returns the ids.
func learner(t *testing.T, srv *edapptest.Server) (userID string, lessonIDs []string) {
	t.Helper()
	courseID, lessonIDs, err := srv.AddCourse(edapptest.CourseSpec{
		Title: "Fire Safety",
		Lessons: []edapptest.LessonSpec{
			{Title: "Raising the alarm", MinimumScore: 70},
			{Title: "Using an extinguisher"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	groupID, err := srv.AddGroup(edapptest.GroupSpec{Name: "Warehouse"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.AssignCourse(groupID, courseID); err != nil {
		t.Fatal(err)
	}
	userID, err = srv.AddUser(edapptest.UserSpec{Username: "ann.lee", FirstName: "Ann", LastName: "Lee",
		Email: "ann.lee@example.com", Groups: []string{groupID}})
	if err != nil {
		t.Fatal(err)
	}
	return userID, lessonIDs
}

// servePages serves srv as `edapp fake` does, with the learner's pages,
// and returns a client of it: the launch links it fetches lead to the
// pages.
func servePages(t *testing.T, srv *edapptest.Server) *edapp.Client {
	t.Helper()
	pages := httptest.NewServer(fakeserve.Handler(srv))
	t.Cleanup(pages.Close)
	return srv.Client(edapp.WithBaseURL(pages.URL))
}

// TestBrowserCompletesALesson clicks through an embedding app's loop in a
// real browser: the app's launch link, the launch page's form, the return
// link; then the app sees the completion through the SDK and its webhook.
func TestBrowserCompletesALesson(t *testing.T) {
	t.Parallel()
	bctx := browser(t, 90*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	srv := edapptest.New(t)
	defer srv.Close()
	client := servePages(t, srv)
	userID, lessonIDs := learner(t, srv)

	// The app: a page to come back to, and a webhook receiver.
	var mu sync.Mutex
	var referers []string
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/lessons/done" {
			http.NotFound(w, r) // the browser asks for /favicon.ico too
			return
		}
		mu.Lock()
		referers = append(referers, r.Referer())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><title>App</title><h1 id=\"app\">Welcome back</h1>"))
	}))
	defer app.Close()
	events := make(chan edapp.Event, 4)
	handler, err := webhook.NewHandler(func(ctx context.Context, ev edapp.Event) error {
		select {
		case events <- ev:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}, webhook.WithSecretHeader("X-Webhook-Secret", "s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	receiver := httptest.NewServer(handler)
	defer receiver.Close()
	if _, err := client.Webhooks.Create(ctx, edapp.WebhookCreateParams{
		EventName: edapp.EventLessonCompleted, WebHookURL: receiver.URL,
		Headers: map[string]string{"X-Webhook-Secret": "s3cret"},
	}); err != nil {
		t.Fatal(err)
	}

	legacy, err := v1.New(client)
	if err != nil {
		t.Fatal(err)
	}
	link, err := legacy.Users.LaunchLink(ctx, userID, lessonIDs[0])
	if err != nil {
		t.Fatal(err)
	}
	back := app.URL + "/lessons/done"
	launch := link.URL.Value() + "&returnUrl=" + url.QueryEscape(back)

	if err := chromedp.Run(bctx,
		chromedp.Navigate(launch),
		chromedp.WaitVisible("#complete", chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	for sel, want := range map[string]string{
		"h1":       "Raising the alarm",
		".course":  "FIRE SAFETY", // upper case by its style
		"#learner": "Ann Lee (ann.lee)",
		"#expires": " UTC (in ", // 20 minutes, less the seconds since the link was minted
	} {
		var got string
		if err := chromedp.Run(bctx, chromedp.Text(sel, &got, chromedp.ByQuery)); err != nil {
			t.Fatal(sel, err)
		}
		if !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", sel, got, want)
		}
	}

	// Complete with a score of 85, then follow the return link.
	var result string
	if err := chromedp.Run(bctx,
		chromedp.SetValue(`input[name="score"]`, "85", chromedp.ByQuery),
		chromedp.Click("#complete", chromedp.ByQuery),
		chromedp.WaitVisible("#result", chromedp.ByQuery),
		chromedp.Text("#result", &result, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(result, "Lesson completed with a score of 85.") || !strings.Contains(result, "Sent LessonCompletedEvent to 1 webhook.") {
		t.Errorf("result: %q", result)
	}
	var loc string
	if err := chromedp.Run(bctx,
		chromedp.Click("#return", chromedp.ByQuery),
		chromedp.WaitVisible("#app", chromedp.ByQuery),
		chromedp.Location(&loc),
	); err != nil {
		t.Fatal(err)
	}
	if loc != back {
		t.Errorf("after Back to the app: %q, want %q", loc, back)
	}
	mu.Lock()
	if len(referers) != 1 || referers[0] != "" {
		t.Errorf("the app got Referer %q; the launch page's address (with its token) must not leak", referers)
	}
	mu.Unlock()

	// The app sees the completion: attempts, progress and the webhook.
	attempts, err := client.Analytics.ListAttempts(ctx, &edapp.AttemptListOptions{UserID: userID})
	if err != nil {
		t.Fatal(err)
	}
	if len(attempts.Items) != 1 || attempts.Items[0].Score == nil || *attempts.Items[0].Score != 85 || !attempts.Items[0].Success || attempts.Items[0].CompletedDateTime.IsZero() {
		t.Errorf("attempts: %+v", attempts.Items)
	}
	progress, err := client.Analytics.ListCourseProgress(ctx, &edapp.CourseProgressListOptions{UserID: userID})
	if err != nil {
		t.Fatal(err)
	}
	if len(progress.Items) != 1 || progress.Items[0].PercentageCompleted != 50 {
		t.Errorf("course progress: %+v", progress.Items)
	}
	select {
	case ev := <-events:
		e, ok := ev.(*edapp.LessonCompletedEvent)
		if !ok || e.UserID != userID || e.LessonID != lessonIDs[0] || e.Score != 85 {
			t.Errorf("webhook delivery: %#v", ev)
		}
	case <-ctx.Done():
		t.Fatal("no LessonCompletedEvent reached the receiver")
	}

	// The browser's requests left no launch token in the fake's log.
	for _, r := range srv.Requests() {
		dump := r.Path + "?" + r.RawQuery + " " + strings.Join(headerValues(r.Header), " ")
		for _, form := range []string{link.Token.Value(), url.QueryEscape(link.Token.Value())} {
			if strings.Contains(dump, form) {
				t.Errorf("request log holds the launch token: %s %s", r.Method, dump)
			}
		}
	}
}

func headerValues(h http.Header) []string {
	var out []string
	for k, vs := range h {
		out = append(out, k+": "+strings.Join(vs, ", "))
	}
	return out
}

// TestLaunchPageScreenshot renders the launch page in headless Chromium
// and checks the picture. With -update-screenshot it rewrites
// docs/launch-page.png, the picture in docs/testing.md:
//
//	go test ./cmd/edapp -run TestLaunchPageScreenshot -update-screenshot
func TestLaunchPageScreenshot(t *testing.T) {
	t.Parallel()
	bctx := browser(t, 60*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// A fixed clock, so that the page shows the same expiry every time.
	issued := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	srv := edapptest.New(t, edapptest.WithClock(func() time.Time { return issued }))
	defer srv.Close()
	userID, lessonIDs := learner(t, srv)
	legacy, err := v1.New(servePages(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	link, err := legacy.Users.LaunchLink(ctx, userID, lessonIDs[0])
	if err != nil {
		t.Fatal(err)
	}

	var shot []byte
	if err := chromedp.Run(bctx,
		chromedp.EmulateViewport(800, 460),
		chromedp.Navigate(link.URL.Value()+"&returnUrl="+url.QueryEscape("http://localhost:3000/")),
		chromedp.WaitVisible("#complete", chromedp.ByQuery),
		chromedp.FullScreenshot(&shot, 100), // 100: PNG
	); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 800 || b.Dy() < 300 {
		t.Fatalf("screenshot is %v, want 800 wide and at least 300 high", b)
	}
	if n := countNear(img, 0x3a, 0x5b, 0xd9); n < 500 {
		t.Fatalf("screenshot shows %d pixels of the button colour; is the page drawn?", n)
	}
	if !*updateScreenshot {
		return
	}
	if err := os.MkdirAll(filepath.Dir(screenshotPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(screenshotPath, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", screenshotPath, len(shot))
}

// countNear counts the pixels within a small distance of an sRGB colour.
func countNear(img image.Image, r, g, b uint8) int {
	near := func(a uint32, c uint8) bool {
		d := int(a>>8) - int(c)
		return d > -8 && d < 8
	}
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if near(pr, r) && near(pg, g) && near(pb, b) {
				n++
			}
		}
	}
	return n
}
