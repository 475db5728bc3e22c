package main

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// reportScreenshotPath is the HTML report's picture in docs/moving-to-safetyculture.md.
const reportScreenshotPath = "../../docs/move-report.png"

// TestMigrateReportHTMLInChromium opens the HTML report of a planted move
// in headless Chromium from a file: it draws its charts and asks for
// nothing outside the file. With -update-screenshot it rewrites
// docs/move-report.png.
func TestMigrateReportHTMLInChromium(t *testing.T) {
	t.Parallel()
	bctx := browser(t, 90*time.Second)
	url := sameKind(t, "sqlite:")
	movedDB(t, url)
	page := filepath.Join(t.TempDir(), "report.html")
	wantCode(t, runEnv(t, env{}, "migrate", "report", "--db", url, "-o", "html", "--out", page, "--moved-at", "2026-01-01"), exitOK)

	var mu sync.Mutex
	var requests []string
	chromedp.ListenTarget(bctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requests = append(requests, e.Request.URL)
			mu.Unlock()
		}
	})
	ctx, cancel := context.WithTimeout(bctx, 60*time.Second)
	defer cancel()
	var shot []byte
	var bars int
	if err := chromedp.Run(ctx,
		network.Enable(),
		chromedp.EmulateViewport(1000, 900),
		chromedp.Navigate("file://"+page),
		chromedp.WaitVisible("svg rect", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("svg rect").length`, &bars),
		chromedp.CaptureScreenshot(&shot),
	); err != nil {
		t.Fatal(err)
	}
	if bars < 13 {
		t.Errorf("%d bars drawn, want one per category at least", bars)
	}
	mu.Lock()
	for _, r := range requests {
		if !strings.HasPrefix(r, "file://") && !strings.HasPrefix(r, "data:") {
			t.Errorf("the page asked for %s", r)
		}
	}
	mu.Unlock()
	if _, err := png.Decode(bytes.NewReader(shot)); err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if *updateScreenshot {
		if err := os.WriteFile(reportScreenshotPath, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
