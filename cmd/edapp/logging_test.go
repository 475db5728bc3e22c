package main

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestExportLogFormatJSON parses every line of an export's stderr with
// --log-format json: each is a record with a time, the command and the
// run's id (one for the run), and each progress line names its kind.
func TestExportLogFormatJSON(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 3)
	r := runExport(t, context.Background(), srv, nil, "--out", t.TempDir(), "--log-format", "json")
	wantCode(t, r, exitOK)
	runs := map[string]bool{}
	kinds := map[string]bool{}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	for _, line := range lines {
		var rec struct {
			Time    time.Time `json:"time"`
			Level   string    `json:"level"`
			Msg     string    `json:"msg"`
			Command string    `json:"command"`
			Run     string    `json:"run"`
			Kind    string    `json:"kind"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not a JSON record: %q: %v", line, err)
		}
		if rec.Time.IsZero() || rec.Level == "" || rec.Msg == "" || rec.Command != "export" || rec.Run == "" {
			t.Errorf("a record without its time, level, message, command or run: %q", line)
		}
		if strings.HasPrefix(rec.Msg, "done, ") != (rec.Kind != "") {
			t.Errorf("a progress line without its kind, or a kind on another line: %q", line)
		}
		runs[rec.Run], kinds[rec.Kind] = true, true
	}
	if len(runs) != 1 || !kinds["attempts"] || !kinds["users"] {
		t.Errorf("runs %v, kinds %v: want one run, every kind", runs, kinds)
	}
}

func TestSyncLogFormatJSON(t *testing.T) {
	t.Parallel()
	srv, _ := syncFixture(t)
	file := writeFile(t, "users.csv", "externalId,username\nE1,\n")
	r := runFake(t, srv, "users", "sync", "--csv", file, "--log-format", "json")
	for _, line := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec["command"] != "users sync" || rec["run"] == "" || rec["time"] == nil {
			t.Errorf("not a record of users sync: %q (%v)", line, err)
		}
	}
}

func TestLogFormatRefusesUnknown(t *testing.T) {
	t.Parallel()
	r := runEnv(t, env{}, "export", "--out", t.TempDir(), "--log-format", "xml")
	wantCode(t, r, exitUsage)
	if !strings.Contains(r.stderr, `--log-format "xml": want text or json`) {
		t.Errorf("stderr: %s", r.stderr)
	}
}

// TestTimedLinesStartEachLineWithTime checks the text format's lines when
// stderr is not a terminal, written whole or in pieces.
func TestTimedLinesStartEachLineWithTime(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	at := time.Date(2026, 3, 7, 4, 12, 5, 0, time.FixedZone("AEDT", 11*3600))
	w := &timedLines{w: &b, now: func() time.Time { return at }}
	for _, s := range []string{"edapp: one\nedapp: t", "wo\n", "\n"} {
		if _, err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	want := "2026-03-06T17:12:05.000Z edapp: one\n2026-03-06T17:12:05.000Z edapp: two\n2026-03-06T17:12:05.000Z \n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// untimed is stderr without the time that starts each line when it is
// not a terminal.
func untimed(s string) string {
	return lineTime.ReplaceAllString(s, "")
}

var lineTime = regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z `)
