package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
)

// readStats reads what --stats wrote.
func readStats(t *testing.T, b []byte) statsJSON {
	t.Helper()
	var s statsJSON
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("--stats wrote %q: %v", b, err)
	}
	return s
}

func readStatsFile(t *testing.T, path string) statsJSON {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return readStats(t, b)
}

// totalRequests is every request the fake counted.
func totalRequests(srv *edapptest.Server) int {
	n := 0
	for _, c := range srv.RequestCounts() {
		n += c
	}
	return n
}

// checkRequestFigures compares the figures with the fake's counters after
// a storm of throttled answers: each 429 was retried once.
func checkRequestFigures(t *testing.T, s statsJSON, srv *edapptest.Server, throttled int) {
	t.Helper()
	if got := totalRequests(srv); s.Attempts != got {
		t.Errorf("attempts %d, the fake received %d", s.Attempts, got)
	}
	if s.Throttled != throttled || s.Retries != throttled {
		t.Errorf("throttled %d, retries %d; want %d each", s.Throttled, s.Retries, throttled)
	}
	if s.Requests != s.Attempts-s.Retries {
		t.Errorf("requests %d, want attempts %d - retries %d", s.Requests, s.Attempts, s.Retries)
	}
	if s.WaitedSeconds["pause"] <= 0 {
		t.Errorf("no pause after a 429: %v", s.WaitedSeconds)
	}
	for _, lane := range []string{"interactive", "bulk", "pause", "backoff"} {
		if _, ok := s.WaitedSeconds[lane]; !ok {
			t.Errorf("waited_seconds has no %s: %v", lane, s.WaitedSeconds)
		}
	}
	if s.Seconds <= 0 {
		t.Errorf("seconds %v", s.Seconds)
	}
}

func TestExportStats(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 5)
	srv.ResetCounters()
	srv.FailNextOn("GET /v2/users", 2, 429, time.Millisecond)
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "stats.json")
	r := runExport(t, context.Background(), srv, nil, "--out", dir, "--stats", file)
	wantCode(t, r, exitOK)
	s := readStatsFile(t, file)
	checkRequestFigures(t, s, srv, 2)
	if s.Records["users"] != len(readKind(t, dir, "users")) || s.Records["attempts"] != len(readKind(t, dir, "attempts")) || s.Records["attempts"] == 0 {
		t.Errorf("records %v", s.Records)
	}
	sum := 0
	for _, n := range s.RequestsByKind {
		sum += n
	}
	if sum != s.Requests {
		t.Errorf("requests_by_kind %v adds up to %d, want %d", s.RequestsByKind, sum, s.Requests)
	}
	if got, want := s.RequestsByKind["users"], srv.RequestCount("GET /v2/users")-2; got != want || got == 0 {
		t.Errorf("requests_by_kind users %d, the fake answered %d", got, want)
	}
	// The summary on stdout counts each kind's requests the same way.
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var kind string
		var records, requests int
		if _, err := fmt.Sscanf(line, "%s %d records, %d requests", &kind, &records, &requests); err != nil {
			t.Fatalf("summary line %q: %v", line, err)
		}
		if s.RequestsByKind[kind] != requests || s.Records[kind] != records {
			t.Errorf("%s: %d records, %d requests in the summary; --stats says %d, %d", kind, records, requests, s.Records[kind], s.RequestsByKind[kind])
		}
	}
}

func TestSyncStats(t *testing.T) {
	t.Parallel()
	srv, _ := syncFixture(t)
	file := writeFile(t, "users.csv", syncCSV)
	srv.ResetCounters()
	srv.FailNext(2, 429, time.Millisecond)
	r := runFake(t, srv, "users", "sync", "--csv", file, "--delete-missing", "--apply", "--stats", "-")
	wantCode(t, r, exitOK)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	s := readStats(t, []byte(lines[len(lines)-1]))
	checkRequestFigures(t, s, srv, 2)
	if want := map[string]int{"created": 1, "updated": 1, "deleted": 1}; !equalCounts(s.Records, want) {
		t.Errorf("records %v, want %v", s.Records, want)
	}
	if s.RequestsByKind != nil {
		t.Errorf("requests_by_kind in a sync: %v", s.RequestsByKind)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestStatsWrittenOnFailure(t *testing.T) {
	t.Parallel()
	srv, _ := syncFixture(t)
	file := writeFile(t, "users.csv", syncCSV)
	srv.FailNext(1, 400, 0)
	stats := filepath.Join(t.TempDir(), "stats.json")
	r := runFake(t, srv, "users", "sync", "--csv", file, "--stats", stats)
	wantCode(t, r, exitError)
	if s := readStatsFile(t, stats); s.Attempts == 0 || s.Attempts != totalRequests(srv) {
		t.Errorf("attempts %d, the fake received %d", s.Attempts, totalRequests(srv))
	}
}

func TestStatsUsage(t *testing.T) {
	t.Parallel()
	srv, _ := syncFixture(t)
	file := writeFile(t, "users.csv", syncCSV)
	r := runFake(t, srv, "users", "sync", "--csv", file, "--stats", filepath.Join(t.TempDir(), "no", "such", "dir", "s.json"))
	wantCode(t, r, exitUsage)
	if n := totalRequests(srv); n != 0 {
		t.Errorf("%d requests sent before the bad --stats was refused", n)
	}
}

func TestCombineObservers(t *testing.T) {
	t.Parallel()
	type key struct{}
	var got []string
	a := edapp.Observer{
		CallStart: func(ctx context.Context, e edapp.CallEvent) context.Context {
			got = append(got, "a start")
			return context.WithValue(ctx, key{}, "a")
		},
		Attempt: func(context.Context, edapp.AttemptEvent) { got = append(got, "a attempt") },
	}
	b := edapp.Observer{
		CallStart: func(ctx context.Context, e edapp.CallEvent) context.Context {
			got = append(got, "b start sees "+ctx.Value(key{}).(string))
			return nil // keeps ctx
		},
		CallEnd: func(ctx context.Context, e edapp.CallEvent) {
			got = append(got, "b end sees "+ctx.Value(key{}).(string))
		},
		Attempt: func(context.Context, edapp.AttemptEvent) { got = append(got, "b attempt") },
	}
	o := combineObservers(a, b, edapp.Observer{})
	if o.Wait != nil || o.Page != nil {
		t.Error("a callback no observer sets is not nil")
	}
	ctx := o.CallStart(context.Background(), edapp.CallEvent{})
	o.Attempt(ctx, edapp.AttemptEvent{})
	o.CallEnd(ctx, edapp.CallEvent{})
	want := "a start|b start sees a|a attempt|b attempt|b end sees a"
	if strings.Join(got, "|") != want {
		t.Errorf("got %s\nwant %s", strings.Join(got, "|"), want)
	}
	if none := combineObservers(); none.CallStart != nil || none.CallEnd != nil || none.Attempt != nil {
		t.Error("no observers combine into callbacks")
	}
}
