package main

import (
	"context"
	"fmt"
	"io"
	"iter"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"
)

// cursorOverlap is how far before its cursor an incremental kind is fetched
// again, to catch records the service dated before they became visible.
const cursorOverlap = 10 * time.Minute

// defaultPartSize is how many records a part of an incremental kind holds
// at most. A run interrupted in the middle of a kind keeps its finished parts.
const defaultPartSize = 50000

type exportFlags struct {
	out         string
	since       string
	format      string
	perUser     bool
	full        bool
	kinds       []string
	concurrency int
}

// wrap breaks s into lines of at most width, each after indent.
func wrap(s, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, w := range strings.Fields(s) {
		if len(line) > len(indent) && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += w
	}
	b.WriteString(line)
	return b.String()
}

func kindNames(filter func(kind) bool) []string {
	var out []string
	for _, k := range kinds {
		if filter(k) {
			out = append(out, k.name)
		}
	}
	return out
}

func (a *app) exportCommand() *cobra.Command {
	var f exportFlags
	cmd := &cobra.Command{
		Use:   "export --out DIR [--since T] [--format csv|jsonl] [--per-user] [--full]",
		Short: "Export the account to CSV or JSONL files, incrementally",
		Long: `export writes the account's data to files in DIR, one kind of record at a time:
` + wrap(strings.Join(kindNames(func(k kind) bool { return !k.perUser }), ", "), "  ", 76) + `
and with --per-user also:
` + wrap(strings.Join(kindNames(func(k kind) bool { return k.perUser }), ", "), "  ", 76) + `

Kinds with a date filter are incremental:
` + wrap(strings.Join(kindNames(func(k kind) bool { return k.incremental }), ", "), "  ", 76) + `
Each keeps a cursor in DIR/` + stateFile + `; a re-run fetches from the
cursor minus 10 minutes of overlap and drops the records it already wrote
(the README gives the key of each kind). New records go to a new part file,
DIR/<kind>/part-NNNNNN.<ext>. A changed record (an attempt since completed,
a course progress that moved on) is written again as a new row: the last
row for a key is the latest. --since sets where a kind without a cursor
starts (default: everything).
The other kinds are fetched in full on each run and their file,
DIR/<kind>.<ext>, is replaced. --full forgets the state of the kinds
exported (all, or those of --kinds) and starts them over.

Every file is written under a temporary name and renamed when whole, and the
state moves only after the data it covers is on disk: Ctrl-C or a crash
leaves whole files, and the next run resumes with no gaps and no duplicates.

CSV files have one header row and the documented columns; fields the SDK
does not know are only in JSONL, which keeps every field. --since takes a
date (2026-01-31), a datetime (2026-01-31T08:00:00Z) or a duration back from
now (7d, 36h, 2w).

The export reads through the SDK's bulk lane with several pages in flight,
and stays within the account's rate budget (1400 requests per 5 minutes).
--per-user costs one request per user and kind (more for users with over
1000 records): with 5,000 users, about 10,000 requests, some 40 minutes of
the budget's bulk share (90%).

On a terminal a progress bar per kind shows records, records per second and
the time spent waiting for the budget; otherwise a log line per kind goes to
stderr. A summary goes to stdout.`,
		Example: `  edapp export --out ./export
  edapp export --out ./export --format jsonl --since 2026-01-01
  edapp export --out ./export --per-user
  edapp export --out ./export --full`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			x, err := a.newExporter(f)
			if err != nil {
				return err
			}
			return x.run(cmd.Context())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "output directory (created if missing)")
	fl.StringVar(&f.since, "since", "", "where incremental kinds without a cursor start: a date, a datetime or a duration back from now")
	fl.StringVar(&f.format, "format", "csv", "output format: csv or jsonl")
	fl.BoolVar(&f.perUser, "per-user", false, "also export each user's lesson progress and events (one request per user and kind)")
	fl.BoolVar(&f.full, "full", false, "forget the state and export everything again")
	fl.StringSliceVar(&f.kinds, "kinds", nil, "export only these kinds (comma-separated; default all)")
	fl.IntVar(&f.concurrency, "concurrency", 4, "requests in flight: pages of one list, or parents of a per-parent kind")
	a.addBudgetFlags(cmd)
	_ = cmd.MarkFlagRequired("out")
	_ = cmd.MarkFlagDirname("out")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"csv", "jsonl"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("kinds", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return kindNames(func(kind) bool { return true }), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// exporter runs one export.
type exporter struct {
	c           *edapp.Client
	dir         string
	format      string
	since       time.Time
	full        bool
	kinds       []kind
	concurrency int
	partSize    int
	now         func() time.Time
	stdout      io.Writer
	prog        progress
	st          *exportState

	// ids cached by the kinds that list them, for the per-parent kinds.
	userIDs, groupIDs, collectionIDs, courseIDs []string

	// summary holds a line per kind, printed when the bars are done.
	summary []string

	// afterWrite, when set, is called after each record written (tests).
	afterWrite func(kind string, n int)
}

func (a *app) newExporter(f exportFlags) (*exporter, error) {
	if f.out == "" {
		return nil, usagef("--out is required")
	}
	if f.format != "csv" && f.format != "jsonl" {
		return nil, usagef("invalid --format %q: want csv or jsonl", f.format)
	}
	if f.concurrency < 1 || f.concurrency > 64 {
		return nil, usagef("invalid --concurrency %d: want 1 to 64", f.concurrency)
	}
	since, err := parseSince(f.since, time.Now())
	if err != nil {
		return nil, usageError{err}
	}
	var ks []kind
	for _, k := range kinds {
		if len(f.kinds) > 0 && !slices.Contains(f.kinds, k.name) {
			continue
		}
		if k.perUser && !f.perUser {
			if len(f.kinds) > 0 {
				return nil, usagef("kind %s needs --per-user", k.name)
			}
			continue
		}
		ks = append(ks, k)
	}
	for _, name := range f.kinds {
		if !slices.ContainsFunc(kinds, func(k kind) bool { return k.name == name }) {
			return nil, usagef("unknown kind %q: want some of %s", name, strings.Join(kindNames(func(kind) bool { return true }), ","))
		}
	}
	c, err := a.client()
	if err != nil {
		return nil, err
	}
	partSize := defaultPartSize
	if a.exportPartSize > 0 {
		partSize = a.exportPartSize
	}
	return &exporter{
		c: c, dir: f.out, format: f.format, since: since, full: f.full, kinds: ks,
		concurrency: f.concurrency, partSize: partSize, now: time.Now,
		stdout: a.stdout, prog: a.newProgress(context.Background(), isTerminal(a.stderr)),
		afterWrite: a.exportHook,
	}, nil
}

// parseSince reads --since: empty, a duration back from now, a date or a
// datetime in any form the SDK accepts.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := parseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("invalid --since %q: a duration must not be negative", s)
		}
		return now.Add(-d).UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	t, err := edapp.ParseTime(s)
	if err != nil || t.IsZero() {
		return time.Time{}, fmt.Errorf("invalid --since %q: want a date (2026-01-31), a datetime (2026-01-31T08:00:00Z) or a duration back from now (7d, 36h, 2w)", s)
	}
	return t.UTC(), nil
}

func (x *exporter) run(ctx context.Context) error {
	if err := os.MkdirAll(x.dir, 0o755); err != nil {
		return err
	}
	st, err := loadState(x.dir)
	if err != nil {
		return err
	}
	switch {
	case st.Format != "" && st.Format != x.format && !x.full:
		return usagef("%s holds a %s export: use --format %s, or --full to start over in %s", x.dir, st.Format, st.Format, x.format)
	case st.Format != x.format:
		// A directory holds one format: a switch starts every kind over.
		st = &exportState{Version: 1, Kinds: map[string]*kindState{}}
	case x.full:
		for _, k := range x.kinds {
			delete(st.Kinds, k.name)
		}
	}
	st.Format = x.format
	x.st = st
	// The state goes first: a reset by --full is on disk before any file
	// it forgot is removed.
	if err := st.save(x.dir); err != nil {
		return err
	}
	if err := cleanDir(x.dir, st); err != nil {
		return err
	}

	var failed []string
	for _, k := range x.kinds {
		var err error
		if k.incremental {
			err = x.runIncremental(ctx, k)
		} else {
			err = x.runFull(ctx, k)
		}
		if ctx.Err() != nil {
			x.finish()
			return fmt.Errorf("export interrupted in %s; run it again to resume: %w", k.name, context.Cause(ctx))
		}
		if fatal(err) {
			x.finish()
			return whatFailed("export "+k.name, err)
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", k.name, err))
		}
	}
	x.finish()
	if len(failed) > 0 {
		return fmt.Errorf("%d kind(s) failed; the others are complete:\n  %s", len(failed), strings.Join(failed, "\n  "))
	}
	return nil
}

func (x *exporter) summarize(format string, args ...any) {
	x.summary = append(x.summary, fmt.Sprintf(format, args...))
}

// finish waits for the bars, then prints the summary.
func (x *exporter) finish() {
	x.prog.wait()
	for _, line := range x.summary {
		fmt.Fprintln(x.stdout, line)
	}
}

func (x *exporter) ext() string { return x.format }

// runFull fetches a kind in full and replaces its file.
func (x *exporter) runFull(ctx context.Context, k kind) error {
	t := x.prog.track(k.name)
	rel := k.name + "." + x.ext()
	f, err := createAtomic(filepath.Join(x.dir, rel))
	if err != nil {
		t.done(err)
		return err
	}
	w, err := newRecordWriter(f, x.format, k.columns)
	if err != nil {
		f.abort()
		t.done(err)
		return err
	}
	n := 0
	s := &stream{ctx: ctx, shared: k.perParent, t: t, sink: func(r record) error {
		if err := w.write(r); err != nil {
			return err
		}
		n++
		if x.afterWrite != nil {
			x.afterWrite(k.name, n)
		}
		return nil
	}}
	err = k.fetch(ctx, x, time.Time{}, s)
	if err == nil {
		err = w.flush()
	}
	if err != nil {
		f.abort()
		t.done(err)
		return err
	}
	if err := f.commit(); err != nil {
		t.done(err)
		return err
	}
	ks := x.st.kind(k.name)
	ks.Records, ks.Updated = n, x.now().UTC()
	if err := x.st.save(x.dir); err != nil {
		t.done(err)
		return err
	}
	t.done(nil)
	x.summarize("%-28s %9d records%s  %s", k.name, n, s.stats(), rel)
	return nil
}

// runIncremental fetches a kind from its cursor, drops the records already
// written, and writes the rest to new parts.
func (x *exporter) runIncremental(ctx context.Context, k kind) error {
	t := x.prog.track(k.name)
	ks := x.st.kind(k.name)
	start := x.now().UTC()
	from := x.since
	if ks.Cursor != nil {
		from = ks.Cursor.Add(-cursorOverlap)
	}
	seen := map[recordKey]struct{}{}
	// The keys of the parts the fetch may meet again: those with records
	// dated from the lower bound on, or all of them for a kind whose
	// records show no date.
	for _, p := range ks.Parts {
		if k.dateField == "" || from.IsZero() || p.Undated || !p.MaxTime.Before(from) {
			if err := readKeys(filepath.Join(x.dir, filepath.FromSlash(p.Keys)), seen); err != nil {
				t.done(err)
				return err
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(x.dir, k.name), 0o755); err != nil {
		t.done(err)
		return err
	}
	pw := &partWriter{x: x, k: k, ks: ks, start: start}
	var latest time.Time
	dups := 0
	s := &stream{ctx: ctx, shared: k.perParent, t: t, sink: func(r record) error {
		key := keyOf(r, k.keyFields)
		if _, dup := seen[key]; dup {
			dups++
			return nil
		}
		seen[key] = struct{}{}
		var date time.Time
		if k.dateField != "" {
			date = r.time(k.dateField)
			if date.After(latest) {
				latest = date
			}
		}
		return pw.write(r, key, date)
	}}
	err := k.fetch(ctx, x, from, s)
	if err == nil {
		err = pw.commit()
	}
	if err != nil {
		pw.abort()
		t.done(err)
		return err
	}
	// The whole range is on disk: the cursor may move.
	cursor := start
	if k.dateField != "" {
		cursor = latest
		if ks.Cursor != nil && ks.Cursor.After(cursor) {
			cursor = *ks.Cursor
		}
	}
	if !cursor.IsZero() {
		ks.Cursor = &cursor
	}
	if err := x.st.save(x.dir); err != nil {
		t.done(err)
		return err
	}
	t.done(nil)
	where := "nothing new"
	if len(pw.written) > 0 {
		where = pw.written[0]
		if len(pw.written) > 1 {
			where += " .. " + path.Base(pw.written[len(pw.written)-1])
		}
	}
	x.summarize("%-28s %9d new records (%d already exported)%s  %s", k.name, pw.total, dups, s.stats(), where)
	return nil
}

// partWriter writes the new records of an incremental kind into parts of
// at most partSize records. Each finished part is renamed into place with
// its keys, and only then recorded in the state.
type partWriter struct {
	x     *exporter
	k     kind
	ks    *kindState
	start time.Time

	f       *atomicFile
	w       recordWriter
	keys    []recordKey
	maxTime time.Time
	undated bool
	total   int
	written []string
}

func (p *partWriter) write(r record, key recordKey, date time.Time) error {
	if p.f == nil {
		if err := p.open(); err != nil {
			return err
		}
	}
	if err := p.w.write(r); err != nil {
		return err
	}
	p.keys = append(p.keys, key)
	p.total++
	if p.k.dateField == "" {
		date = p.start
	}
	if date.IsZero() {
		p.undated = true
	} else if date.After(p.maxTime) {
		p.maxTime = date
	}
	if p.x.afterWrite != nil {
		p.x.afterWrite(p.k.name, p.total)
	}
	if len(p.keys) >= p.x.partSize {
		return p.commit()
	}
	return nil
}

func (p *partWriter) nextNumber() int {
	n := 0
	for _, part := range p.ks.Parts {
		var i int
		if _, err := fmt.Sscanf(path.Base(part.File), "part-%d", &i); err == nil && i > n {
			n = i
		}
	}
	return n + 1
}

func (p *partWriter) open() error {
	name := partName(p.nextNumber(), p.x.ext())
	f, err := createAtomic(filepath.Join(p.x.dir, p.k.name, name))
	if err != nil {
		return err
	}
	w, err := newRecordWriter(f, p.x.format, p.k.columns)
	if err != nil {
		f.abort()
		return err
	}
	p.f, p.w, p.keys, p.maxTime, p.undated = f, w, nil, time.Time{}, false
	return nil
}

// commit finishes the open part, if any: keys, then data, then state.
func (p *partWriter) commit() error {
	if p.f == nil {
		return nil
	}
	f := p.f
	p.f = nil
	n := p.nextNumber()
	info := partInfo{
		File:    path.Join(p.k.name, partName(n, p.x.ext())),
		Keys:    path.Join(p.k.name, keysName(n)),
		Records: len(p.keys),
		MaxTime: p.maxTime,
		Undated: p.undated,
	}
	if err := p.w.flush(); err != nil {
		f.abort()
		return err
	}
	if err := writeKeys(filepath.Join(p.x.dir, filepath.FromSlash(info.Keys)), p.keys); err != nil {
		f.abort()
		return err
	}
	if err := f.commit(); err != nil {
		return err
	}
	p.ks.Parts = append(p.ks.Parts, info)
	p.ks.Records += info.Records
	p.ks.Updated = p.x.now().UTC()
	if err := p.x.st.save(p.x.dir); err != nil {
		return err
	}
	p.written = append(p.written, info.File)
	return nil
}

func (p *partWriter) abort() {
	if p.f != nil {
		p.f.abort()
		p.f = nil
	}
}

// stream takes the records of one kind, from one goroutine or several.
type stream struct {
	ctx    context.Context // checked before each record: Ctrl-C stops mid-page
	shared bool            // fed by one list per parent: no single total
	mu     sync.Mutex
	t      tracker
	sink   func(record) error

	totalSet          bool
	requests, dropped int
	parents           int // parents done, for a per-parent kind
}

// parentDone counts n more parents done out of total.
func (s *stream) parentDone(n, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parents += n
	s.t.parents(s.parents, total)
}

// page takes the metadata of a page, once: the total count of a single
// list drives the bar, and every page's wait for the budget is counted.
// An iterator fills resp before the first item of each page, so a resp
// with Attempts set is a page not seen yet.
func (s *stream) page(resp *edapp.Response) {
	if resp == nil || resp.Attempts == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if total, ok := resp.Total(); ok && !s.shared && !s.totalSet {
		s.t.setTotal(total)
		s.totalSet = true
	}
	s.requests++
	s.dropped += len(resp.Dropped)
	s.t.add(0, resp.Waited)
	resp.Attempts = 0
}

// stats describes the requests made, for the summary.
func (s *stream) stats() string {
	out := fmt.Sprintf(", %d requests", s.requests)
	if s.dropped > 0 {
		out += fmt.Sprintf(", %d odd values left out", s.dropped)
	}
	return out
}

func (s *stream) emit(v any) error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	r, err := newRecord(v)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.sink(r); err != nil {
		return err
	}
	s.t.add(1, 0)
	return nil
}

// each sends every item of seq to s, calling seen (if not nil) on each.
// resp is the Response seq fills for each page (see exporter.opts).
func each[T any](s *stream, resp *edapp.Response, seq iter.Seq2[T, error], seen func(T)) error {
	for v, err := range seq {
		if err != nil {
			return err
		}
		s.page(resp)
		if seen != nil {
			seen(v)
		}
		if err := s.emit(v); err != nil {
			return err
		}
	}
	s.page(resp) // a list with no items still had a page
	return nil
}

func idsOf[T any](seq iter.Seq2[T, error], id func(T) string) ([]string, error) {
	var out []string
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, id(v))
	}
	return out, nil
}

// ids returns *cache when a kind earlier in the run filled it, and lists
// the ids otherwise.
func (x *exporter) ids(ctx context.Context, cache *[]string, list func(context.Context) ([]string, error)) ([]string, error) {
	if *cache != nil {
		return *cache, nil
	}
	ids, err := list(ctx)
	if err != nil {
		return nil, err
	}
	*cache = ids
	return ids, nil
}

// fanOut runs fn for each parent id, concurrency at a time, reporting the
// parents done on s.
func (x *exporter) fanOut(ctx context.Context, s *stream, parents []string, fn func(context.Context, string) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(x.concurrency)
	s.parentDone(0, len(parents))
	for _, id := range parents {
		g.Go(func() error {
			if err := fn(ctx, id); err != nil {
				return err
			}
			s.parentDone(1, len(parents))
			return nil
		})
	}
	return g.Wait()
}

// perUser runs fn for each user of the account.
func (x *exporter) perUser(ctx context.Context, s *stream, fn func(context.Context, string) error) error {
	users, err := x.ids(ctx, &x.userIDs, func(ctx context.Context) ([]string, error) {
		return idsOf(x.c.Users.All(ctx, &edapp.UserListOptions{ListOptions: x.pageSize()}, x.opts(nil)...), func(u edapp.User) string { return u.ID })
	})
	if err != nil {
		return err
	}
	return x.fanOut(ctx, s, users, fn)
}

// opts are the request options of every read: the bulk lane, pages in
// parallel, and the answer's metadata into resp (when not nil).
func (x *exporter) opts(resp *edapp.Response) []edapp.RequestOption {
	if resp == nil {
		return []edapp.RequestOption{edapp.WithBulk(), edapp.WithPageConcurrency(x.concurrency)}
	}
	return append(readOpts(resp), edapp.WithPageConcurrency(x.concurrency))
}

func (x *exporter) pageSize() edapp.ListOptions {
	return edapp.ListOptions{PageSize: edapp.MaxPageSize}
}

func (x *exporter) listOpts() *edapp.ListOptions {
	o := x.pageSize()
	return &o
}
