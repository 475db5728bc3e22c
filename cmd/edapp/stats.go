package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/usersync"
	"github.com/spf13/cobra"
)

// runStats counts what a run's client did, through an edapp.Observer, for
// --stats. Its callbacks run on the goroutines making the calls, so every
// count is behind mu.
type runStats struct {
	start time.Time
	// kindOf names the export kind a call belongs to, from its context; nil
	// when the run is not an export.
	kindOf func(context.Context) (string, bool)

	mu        sync.Mutex
	requests  int
	attempts  int
	retries   int
	throttled int
	waited    map[edapp.WaitKind]time.Duration
	byKind    map[string]int
	records   map[string]int
	rejected  map[string]int    // by kind, for an export
	versions  [2]map[string]int // opened, closed in the history tables, by kind
}

func newRunStats(now time.Time) *runStats {
	return &runStats{start: now, waited: map[edapp.WaitKind]time.Duration{}, byKind: map[string]int{}, records: map[string]int{}, rejected: map[string]int{},
		versions: [2]map[string]int{{}, {}}}
}

// observer is the hook that feeds s.
func (s *runStats) observer() edapp.Observer {
	return edapp.Observer{CallEnd: s.callEnd, Attempt: s.attempt, Wait: s.wait}
}

// callEnd counts a call that sent at least one attempt; one refused before
// sending is no request.
func (s *runStats) callEnd(ctx context.Context, e edapp.CallEvent) {
	if e.Attempts == 0 {
		return
	}
	kind, ok := "", false
	if s.kindOf != nil {
		kind, ok = s.kindOf(ctx)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	if ok {
		s.byKind[kind]++
	}
}

func (s *runStats) attempt(_ context.Context, e edapp.AttemptEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts++
	if e.Attempt > 1 {
		s.retries++
	}
	if e.StatusCode == 429 {
		s.throttled++
	}
}

func (s *runStats) wait(_ context.Context, e edapp.WaitEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waited[e.Kind] += e.Duration
}

// exportDone takes the records of each kind from an export's summary.
func (s *runStats) exportDone(sum *export.Report) {
	if s == nil || sum == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range sum.Kinds {
		s.records[k.Kind] += k.Records
		if k.Rejected > 0 {
			s.rejected[k.Kind] += k.Rejected
		}
		if k.VersionsOpened+k.VersionsClosed > 0 {
			s.versions[0][k.Kind] += k.VersionsOpened
			s.versions[1][k.Kind] += k.VersionsClosed
		}
	}
}

// syncDone takes the users a sync created, updated and deleted.
func (s *runStats) syncDone(res usersync.Result) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records["created"] += res.Created
	s.records["updated"] += res.Updated
	s.records["deleted"] += res.Deleted
}

// statsJSON is what --stats writes: one JSON object.
type statsJSON struct {
	Requests       int                `json:"requests"`
	Attempts       int                `json:"attempts"`
	Retries        int                `json:"retries"`
	Throttled      int                `json:"throttled"`
	WaitedSeconds  map[string]float64 `json:"waited_seconds"`
	Records        map[string]int     `json:"records"`
	RequestsByKind map[string]int     `json:"requests_by_kind,omitempty"`
	Rejected       map[string]int     `json:"rejected,omitempty"`        // records kept in the rejects table, by kind
	VersionsOpened map[string]int     `json:"versions_opened,omitempty"` // versions opened in the history tables, by kind
	VersionsClosed map[string]int     `json:"versions_closed,omitempty"` // and closed
	Seconds        float64            `json:"seconds"`
}

// snapshot is s's figures at now.
func (s *runStats) snapshot(now time.Time) statsJSON {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := statsJSON{
		Requests: s.requests, Attempts: s.attempts, Retries: s.retries, Throttled: s.throttled,
		WaitedSeconds: map[string]float64{}, Records: map[string]int{},
		Seconds: now.Sub(s.start).Seconds(),
	}
	for _, k := range []edapp.WaitKind{edapp.WaitInteractive, edapp.WaitBulk, edapp.WaitPause, edapp.WaitBackoff} {
		out.WaitedSeconds[string(k)] = s.waited[k].Seconds()
	}
	for k, n := range s.records {
		out.Records[k] = n
	}
	if len(s.rejected) > 0 {
		out.Rejected = maps.Clone(s.rejected)
	}
	if len(s.versions[0]) > 0 {
		out.VersionsOpened, out.VersionsClosed = maps.Clone(s.versions[0]), maps.Clone(s.versions[1])
	}
	if s.kindOf != nil {
		out.RequestsByKind = map[string]int{}
		for k, n := range s.byKind {
			out.RequestsByKind[k] = n
		}
	}
	return out
}

// statsFlag is --stats FILE: where a run writes its figures.
type statsFlag struct {
	file  string
	stats *runStats
}

// addStatsFlag registers --stats on cmd. Before the command runs it checks
// that the file's directory exists and starts the run's counters, which
// the factory hooks into the client it builds; run writes them when the
// command is done, failed or not. kindOf is set for a command whose calls
// carry a kind in their context.
func addStatsFlag(s *ioStreams, cmd *cobra.Command, kindOf func(context.Context) (string, bool)) {
	cmd.Flags().StringVar(&s.stats.file, "stats", "", "write the run's figures (requests, retries, waits, records) as one JSON object to this file (- for stdout)")
	cmd.PreRunE = func(*cobra.Command, []string) error {
		f := s.stats.file
		if f == "" {
			return nil
		}
		if f != "-" {
			if st, err := os.Stat(filepath.Dir(f)); err != nil || !st.IsDir() {
				return usagef("invalid --stats %q: its directory does not exist", f)
			}
		}
		s.stats.stats = newRunStats(time.Now())
		s.stats.stats.kindOf = kindOf
		return nil
	}
}

// write writes the figures to the --stats file, if one was given.
func (f *statsFlag) write(stdout io.Writer) error {
	if f.stats == nil {
		return nil
	}
	b, err := json.Marshal(f.stats.snapshot(time.Now()))
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if f.file == "-" {
		_, err = stdout.Write(b)
		return err
	}
	if err := os.WriteFile(f.file, b, privateMode); err != nil {
		return fmt.Errorf("--stats: %w", err)
	}
	return nil
}
