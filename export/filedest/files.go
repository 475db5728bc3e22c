package filedest

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
)

// defaultPartSize is how many records a part of an incremental kind holds
// at most. A run interrupted in the middle of a kind keeps its finished parts.
const defaultPartSize = 50000

// Files is the files destination: CSV or JSONL files in a directory, with
// the export's state in a file beside them.
//
// A mirrored kind is written to DIR/<kind>.<ext>, replaced whole when its
// fetch is complete. An incremental kind gets new part files,
// DIR/<kind>/part-NNNNNN.<ext>, holding the records not written before
// (by its KeyFields): a changed record (an attempt since completed) is
// written again as a new row, so the last row for a key is the latest.
// Every file is written under a temporary name and renamed when whole, and
// the state moves only after the data it covers is on disk.
type Files struct {
	dir      string
	format   string
	partSize int
	st       *exportState
	release  func()                // the directory's lock
	kinds    map[string]kindWriter // the kinds being written
	fresh    bool                  // WithFresh's: Open starts the directory over
	optErr   error                 // the first bad option value
}

// Option configures Open. A bad value makes Open fail with an error
// wrapping edapp.ErrInvalidInput; a nil Option is skipped.
type Option func(*Files)

// WithFormat sets the files' format: "csv" or "jsonl", or "" (the
// default) for the format the directory already holds (csv for a new
// one). A format that differs from the directory's is an error, unless
// WithFresh starts it over.
func WithFormat(format string) Option {
	return func(f *Files) {
		if format != "" && format != "csv" && format != "jsonl" {
			f.optErr = cmp.Or(f.optErr, fmt.Errorf("export: %w: format %q: want csv or jsonl", edapp.ErrInvalidInput, format))
			return
		}
		f.format = format
	}
}

// WithFresh(true) starts the directory over (export.Options.Full): it may
// then switch formats.
func WithFresh(fresh bool) Option {
	return func(f *Files) { f.fresh = fresh }
}

// WithPartSize sets the most records in a part file (default 50,000); n
// must be at least 1.
func WithPartSize(n int) Option {
	return func(f *Files) {
		if n < 1 {
			f.optErr = cmp.Or(f.optErr, fmt.Errorf("export: %w: WithPartSize(%d): want at least 1", edapp.ErrInvalidInput, n))
			return
		}
		f.partSize = n
	}
}

// Open opens (creating it if needed) the export directory dir, in the
// format WithFormat says. A second export into the same directory is
// refused (export.ErrLocked) until this one calls Close.
func Open(dir string, opts ...Option) (*Files, error) {
	set := &Files{partSize: defaultPartSize}
	for _, o := range opts {
		if o != nil {
			o(set)
		}
	}
	if set.optErr != nil {
		return nil, set.optErr
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	release, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	f, err := openFiles(dir, set)
	if err != nil {
		release()
		return nil, err
	}
	f.release = release
	return f, nil
}

// Close lets another export write into the directory.
func (f *Files) Close() error {
	if f.release != nil {
		f.release()
		f.release = nil
	}
	return nil
}

// openFiles reads the directory's state, with set's settings.
func openFiles(dir string, set *Files) (*Files, error) {
	format, fresh := set.format, set.fresh
	st, err := loadState(dir)
	if err != nil {
		return nil, err
	}
	switch {
	case format == "":
		format = st.Format
		if format == "" {
			format = "csv"
		}
	case st.Format != "" && st.Format != format && !fresh:
		return nil, fmt.Errorf("%w: %s holds a %s export: use --format %s, or --full to start over in %s", ErrFormat, dir, st.Format, st.Format, format)
	}
	if st.Format != format {
		// A directory holds one format: a switch starts every kind over.
		// The budget spent is the token's, whatever the format: it stays.
		st = &exportState{Version: 1, Kinds: map[string]*kindState{}, Budget: st.Budget}
	}
	st.Format = format
	f := &Files{dir: dir, format: format, partSize: set.partSize, st: st}
	// The state goes first: a reset is on disk before any file it forgot
	// is removed.
	if err := st.save(dir); err != nil {
		return nil, err
	}
	if err := cleanDir(dir); err != nil {
		return nil, err
	}
	return f, nil
}

// ErrFormat is wrapped by OpenFiles's error for a format that is not the
// directory's.
var ErrFormat = fmt.Errorf("export: format mismatch")

// Format is the directory's format: csv or jsonl.
func (f *Files) Format() string { return f.format }

func (f *Files) ext() string { return f.format }

// Resume starts an incremental kind from its cursor minus Overlap, a
// mirrored one from the start.
func (f *Files) Resume(_ context.Context, k *export.Kind, r export.RunInfo) (export.Plan, error) {
	if r.Fresh {
		delete(f.st.Kinds, k.Name)
		if err := f.st.save(f.dir); err != nil {
			return export.Plan{}, err
		}
	}
	p := export.Plan{From: r.Since}
	if ks := f.st.Kinds[k.Name]; ks != nil && ks.Cursor != nil {
		p.From = ks.Cursor.Add(-overlapOf(k))
	}
	if ks := f.st.Kinds[k.Name]; ks != nil && !k.Incremental {
		p.Fetched = ks.Updated // a mirrored kind's file changes when it is complete
	}
	if ks := f.st.Kinds[k.Name]; ks != nil && k.Remirror && ks.Mirrored != nil {
		p.Fetched = *ks.Mirrored
	}
	return p, nil
}

// Begin opens the kind's file, or loads the keys of the parts the fetch
// may meet again.
func (f *Files) Begin(_ context.Context, k *export.Kind, p export.Plan) error {
	if f.kinds == nil {
		f.kinds = map[string]kindWriter{}
	}
	var recorded []partInfo
	if ks := f.st.Kinds[k.Name]; ks != nil {
		recorded = ks.Parts
	}
	if err := cleanKind(f.dir, k, recorded); err != nil {
		return err
	}
	var w kindWriter
	var err error
	if k.Incremental {
		w, err = f.beginParts(k, p)
	} else {
		w, err = f.beginFile(k)
	}
	if err == nil {
		f.kinds[k.Name] = w
	}
	return err
}

// Write appends the batch's records: all of them for a mirrored kind, the
// ones not written before for an incremental kind.
func (f *Files) Write(_ context.Context, b *export.Batch) error {
	w := f.kinds[b.Kind.Name]
	for _, r := range b.Records {
		if err := w.write(b, r); err != nil {
			return err
		}
	}
	return nil
}

// End commits the kind's file or last part and, for a complete
// incremental kind, moves its cursor to the walk's start. A failed kind
// keeps the parts it finished and drops the rest.
func (f *Files) End(_ context.Context, k *export.Kind, r *export.KindResult, _ func()) error {
	w := f.kinds[k.Name]
	if w == nil {
		return nil // Begin failed
	}
	defer delete(f.kinds, k.Name)
	return w.end(r)
}

// kindWriter is one kind being written (the engine writes several at
// once): a mirrored kind's file or an incremental kind's parts.
type kindWriter interface {
	write(b *export.Batch, r export.Record) error
	end(r *export.KindResult) error
}

// kindFile is a mirrored kind's new file, which replaces the old one when
// the kind ends.
type kindFile struct {
	f       *Files
	k       *export.Kind
	file    *atomicFile
	w       recordWriter
	written int
}

func (f *Files) beginFile(k *export.Kind) (*kindFile, error) {
	a, err := createAtomic(filepath.Join(f.dir, k.Name+"."+f.ext()))
	if err != nil {
		return nil, err
	}
	w, err := newRecordWriter(a, f.format, k.Columns)
	if err != nil {
		a.abort()
		return nil, err
	}
	return &kindFile{f: f, k: k, file: a, w: w}, nil
}

func (c *kindFile) write(_ *export.Batch, r export.Record) error {
	if err := c.w.write(r); err != nil {
		return err
	}
	c.written++
	return nil
}

func (c *kindFile) end(r *export.KindResult) error {
	if r.Err != nil {
		c.file.abort()
		return nil
	}
	if err := c.w.flush(); err != nil {
		c.file.abort()
		return err
	}
	if err := c.file.commit(); err != nil {
		return err
	}
	ks := c.f.st.kind(c.k.Name)
	ks.Records, ks.Updated = c.written, time.Now().UTC()
	if err := c.f.st.save(c.f.dir); err != nil {
		return err
	}
	r.Notes = append(r.Notes, fmt.Sprintf("%d records  %s", c.written, c.k.Name+"."+c.f.ext()))
	return nil
}

// kindParts is an incremental kind's walk: the records not exported
// before, in new parts.
type kindParts struct {
	f       *Files
	k       *export.Kind
	parts   *partWriter
	seen    map[recordKey]struct{}
	dups    int
	written int
	// fullWalk: a Remirror kind fetched in full. Its parts keep every
	// version, as for any incremental kind; the state records when.
	fullWalk bool
}

// beginParts readies an incremental kind's next part, with the keys of
// the parts a record of this walk may repeat: those with records dated from
// the lower bound on, or all of them for a kind whose records show no date.
func (f *Files) beginParts(k *export.Kind, p export.Plan) (*kindParts, error) {
	ks := f.st.kind(k.Name)
	c := &kindParts{f: f, k: k, seen: map[recordKey]struct{}{}, fullWalk: k.Remirror && p.From.IsZero()}
	for _, part := range ks.Parts {
		if k.DateField == "" || p.From.IsZero() || part.Undated || !part.MaxTime.Before(p.From) {
			if err := readKeys(f.dir, part, c.seen); err != nil {
				return nil, err
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(f.dir, k.Name), 0o755); err != nil {
		return nil, err
	}
	c.parts = &partWriter{f: f, k: k, ks: ks}
	return c, nil
}

func (c *kindParts) write(b *export.Batch, r export.Record) error {
	key := keyOf(r, c.k.KeyFields)
	if _, dup := c.seen[key]; dup {
		c.dups++
		return nil
	}
	c.seen[key] = struct{}{}
	date := b.Started
	if c.k.DateField != "" {
		date = r.Time(c.k.DateField)
	}
	if err := c.parts.write(r, key, date); err != nil {
		return err
	}
	c.written++
	return nil
}

func (c *kindParts) end(r *export.KindResult) error {
	if r.Err != nil {
		c.parts.abort()
		return c.parts.commitErr
	}
	if err := c.parts.commit(); err != nil {
		c.parts.abort()
		return err
	}
	ks := c.f.st.kind(c.k.Name)
	cursor := r.Started
	if ks.Cursor == nil || cursor.After(*ks.Cursor) {
		ks.Cursor = &cursor
	}
	if c.fullWalk {
		now := time.Now().UTC()
		ks.Mirrored = &now
	}
	if err := c.f.st.save(c.f.dir); err != nil {
		return err
	}
	r.Notes = append(r.Notes, fmt.Sprintf("%d new records (%d already exported)  %s", c.written, c.dups, partsWritten(c.parts.written)))
	return nil
}

// partsWritten names the first and last of the parts a walk wrote.
func partsWritten(w []string) string {
	switch len(w) {
	case 0:
		return "nothing new"
	case 1:
		return w[0]
	}
	return w[0] + " .. " + path.Base(w[len(w)-1])
}

// partWriter writes the new records of an incremental kind into parts of
// at most partSize records. Each finished part is renamed into place with
// its keys, and only then recorded in the state.
type partWriter struct {
	f  *Files
	k  *export.Kind
	ks *kindState

	a         *atomicFile
	w         recordWriter
	keys      []recordKey
	maxTime   time.Time
	undated   bool
	written   []string
	commitErr error
}

func (p *partWriter) write(r export.Record, key recordKey, date time.Time) error {
	if p.a == nil {
		if err := p.open(); err != nil {
			return err
		}
	}
	if err := p.w.write(r); err != nil {
		return err
	}
	p.keys = append(p.keys, key)
	if date.IsZero() {
		p.undated = true
	} else if date.After(p.maxTime) {
		p.maxTime = date
	}
	if len(p.keys) >= p.f.partSize {
		if err := p.commit(); err != nil {
			p.commitErr = err
			return err
		}
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
	name := partName(p.nextNumber(), p.f.ext())
	a, err := createAtomic(filepath.Join(p.f.dir, p.k.Name, name))
	if err != nil {
		return err
	}
	w, err := newRecordWriter(a, p.f.format, p.k.Columns)
	if err != nil {
		a.abort()
		return err
	}
	p.a, p.w, p.keys, p.maxTime, p.undated = a, w, nil, time.Time{}, false
	return nil
}

// commit finishes the open part, if any: keys, then data, then state.
func (p *partWriter) commit() error {
	if p.a == nil {
		return nil
	}
	a := p.a
	p.a = nil
	n := p.nextNumber()
	info := partInfo{
		File:    path.Join(p.k.Name, partName(n, p.f.ext())),
		Keys:    path.Join(p.k.Name, keysName(n)),
		Records: len(p.keys),
		MaxTime: p.maxTime,
		Undated: p.undated,
	}
	if err := p.w.flush(); err != nil {
		a.abort()
		return err
	}
	sum, err := writeKeys(filepath.Join(p.f.dir, filepath.FromSlash(info.Keys)), p.keys)
	if err != nil {
		a.abort()
		return err
	}
	info.KeysSHA256 = sum
	if err := a.commit(); err != nil {
		return err
	}
	p.ks.Parts = append(p.ks.Parts, info)
	p.ks.Records += info.Records
	p.ks.Updated = time.Now().UTC()
	if err := p.f.st.save(p.f.dir); err != nil {
		return err
	}
	p.written = append(p.written, info.File)
	return nil
}

func (p *partWriter) abort() {
	if p.a != nil {
		p.a.abort()
		p.a = nil
	}
}

// overlapOf is how far before its cursor k is fetched again.
func overlapOf(k *export.Kind) time.Duration { return cmp.Or(max(k.Overlap, 0), export.Overlap) }
