package main

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/edappsrc"
	"github.com/edapp-go/edapp/export/filedest"
	"github.com/edapp-go/edapp/export/scsrc"
	"github.com/edapp-go/edapp/export/sqldest"
	"github.com/edapp-go/edapp/safetyculture"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/text/unicode/norm"
)

// exportOptions are what `edapp export` builds on, from the factory, and
// what its command line parsed to: the flags, and the engine's options
// they make.
type exportOptions struct {
	IO  *ioStreams
	Env func(string) string
	// Client and SafetyCultureClient build the source's client on the
	// budget flags.
	Client              func() (*apiClient, error)
	SafetyCultureClient func() (*safetyculture.Client, error)
	// OpenDB opens the --db database, which OpenDatabase takes; OpenFiles
	// takes the --out directory.
	OpenDB       dbOpener
	OpenDatabase func(ctx context.Context, db *sql.DB, d sqldest.Dialect, opts ...sqldest.DatabaseOption) (*sqldest.Database, error)
	OpenFiles    func(dir string, opts ...filedest.Option) (*filedest.Files, error)
	// RunExport is the engine, for either source.
	RunExport func(ctx context.Context, src export.Source, opts export.Options, dests ...export.Destination) (*export.Report, error)
	Progress  func(ctx context.Context, bars bool) progress

	flags  exportFlags
	budget budgetFlags
	engine export.Options
	// scBudget is --budget for --source safetyculture: the limit classes
	// it overrides.
	scBudget scBudget
}

// finish reads --db's default from the environment, then checks the
// flags and makes the engine's options.
func (o *exportOptions) finish(cmd *cobra.Command) error {
	if !cmd.Flags().Changed("db") {
		o.flags.db = o.Env("EDAPP_EXPORT_DB")
	}
	var err error
	if o.flags.rejectsExitCode, err = rejectsExitCode(cmd, o.Env, o.flags.rejectsExitCode); err != nil {
		return err
	}
	if o.engine, err = engineOptions(o.flags); err != nil {
		return err
	}
	if o.flags.source == sqldest.SourceSafetyCulture {
		o.scBudget, err = parseSCBudget(o.budget.budget)
	}
	return err
}

type exportFlags struct {
	source      string
	out         string
	db          string
	since       string
	format      string
	perUser     bool
	full        bool
	kinds       []string
	concurrency int
	openWindow  time.Duration
	maxAge      time.Duration
	historyKeep time.Duration
	overlap     time.Duration
	deadline    time.Duration // --deadline; 0: none
	// rejectsExitCode is the exit code of a run that finished with
	// rejected records.
	rejectsExitCode int
}

// rejectsExitCode is --rejects-exit-code, or EDAPP_REJECTS_EXIT_CODE when
// the flag is not given, checked: an exit code from 0 to 125 (the shells
// keep the codes above).
func rejectsExitCode(cmd *cobra.Command, env func(string) string, flag int) (int, error) {
	code, from := flag, "--rejects-exit-code"
	if v := env("EDAPP_REJECTS_EXIT_CODE"); v != "" && !cmd.Flags().Changed("rejects-exit-code") {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0, usagef("invalid EDAPP_REJECTS_EXIT_CODE %q: want an exit code from 0 to 125", v)
		}
		code, from = n, "EDAPP_REJECTS_EXIT_CODE"
	}
	if code < 0 || code > 125 {
		return 0, usagef("invalid %s %d: want an exit code from 0 to 125", from, code)
	}
	return code, nil
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

func kindNames(filter func(export.Kind) bool) []string {
	return export.KindNames(edappsrc.Kinds(), filter)
}

// newCmdExport makes `edapp export`; runF, when not nil, runs instead of
// the export with the options the flags parsed to.
func newCmdExport(fac *factory, runF func(*exportOptions) error) *cobra.Command {
	o := &exportOptions{IO: fac.IO, Env: fac.Env, OpenDB: openDB, OpenDatabase: fac.OpenDatabase, OpenFiles: fac.OpenFiles,
		RunExport: fac.RunExport, Progress: fac.Progress}
	o.Client = func() (*apiClient, error) { return fac.Client(&o.budget) }
	o.SafetyCultureClient = func() (*safetyculture.Client, error) { return fac.SafetyCultureClient(&o.budget, o.scBudget) }
	all := func(export.Kind) bool { return true }
	cmd := &cobra.Command{
		Use:   "export (--db URL | --out DIR) [--since T] [--format csv|jsonl] [--per-user] [--full]",
		Short: "Export the account into SQLite, PostgreSQL, or CSV or JSONL files, incrementally",
		Long:  exportHelp(),
		Example: `  edapp export --db sqlite:edapp.db
  EDAPP_EXPORT_DB='postgres://edapp@db.example.com:5432/edapp' edapp export   # password in ~/.pgpass or PGPASSWORD
  edapp export --db sqlite:edapp.db --out ./export
  edapp export --out ./export --format jsonl --since 2026-01-01
  edapp export --out ./export --per-user`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			warnDBFlag(o.IO.ErrOut, cmd.Flags().Changed("db"), o.flags.db)
			if err := o.finish(cmd); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			ctx, cancel := withRunDeadline(cmd.Context(), o.flags.deadline)
			defer cancel()
			return runDeadlineFailure(ctx, exportRun(ctx, o))
		},
	}
	addExportFlags(cmd.Flags(), &o.flags)
	addBudgetFlags(cmd, &o.budget)
	addStatsFlag(fac.IO, cmd, export.KindFromContext)
	_ = cmd.MarkFlagDirname("out")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"csv", "jsonl"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("kinds", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return kindNames(all), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// addExportFlags registers edapp export's own flags into f.
func addExportFlags(fl *pflag.FlagSet, f *exportFlags) {
	fl.StringVar(&f.source, "source", sqldest.SourceEdApp, "the service to export: edapp, or safetyculture (SAFETYCULTURE_API_TOKEN, SAFETYCULTURE_BASE_URL)")
	fl.StringVar(&f.db, "db", "", "database to export into: sqlite:PATH or postgres://... (default: $EDAPP_EXPORT_DB)")
	fl.StringVar(&f.out, "out", "", "directory to export files into (created if missing)")
	fl.StringVar(&f.since, "since", "", "where incremental kinds without a cursor start: a date, a datetime or a duration back from now")
	fl.StringVar(&f.format, "format", "", "file format with --out: csv or jsonl (default: the directory's, csv for a new one)")
	fl.BoolVar(&f.perUser, "per-user", false, "also export each user's lesson progress and events, and with --source safetyculture slide statistics (one request per user and kind)")
	fl.BoolVar(&f.full, "full", false, "forget the state and export everything again")
	fl.StringSliceVar(&f.kinds, "kinds", nil, "export only these kinds (comma-separated; default all)")
	fl.IntVar(&f.concurrency, "concurrency", 4, "requests in flight for the whole export, across kinds and parents (one pool)")
	fl.DurationVar(&f.maxAge, "max-age", 0, "skip a mirrored kind whose last complete fetch is younger than this (0: fetch every run)")
	fl.DurationVar(&f.historyKeep, "history-keep", 0, "with --db, delete the versions of the history tables closed longer ago than this, but each row's latest (0: keep every version)")
	fl.DurationVar(&f.overlap, "overlap", 0, "fetch an incremental kind again from this long before its cursor (0: the source's, 10m for edapp, 2h15m for safetyculture, the least taken)")
	fl.DurationVar(&f.openWindow, "open-window", export.DefaultOpenWindow, "fetch an attempt still open again on each run while it started less than this ago (0: never)")
	fl.IntVar(&f.rejectsExitCode, "rejects-exit-code", exitRejected, "exit code of a run that finished with rejected records, which the summary, --stats and the log still report (default: $EDAPP_REJECTS_EXIT_CODE or 3; 0 counts it as success)")
	fl.DurationVar(&f.deadline, "deadline", 0, "end the run after this long: the kinds still running stop, keep what they wrote, and the next run resumes (0: no deadline)")
}

// exportHelp is the long help of edapp export.
func exportHelp() string {
	return exportKindsHelp() + "\n\n" + safetyCultureExportHelp() + "\n\n" + exportStateHelp() + "\n\n" + exportRunHelp
}

// exportKindsHelp lists EdApp's kinds, from the kinds' table.
func exportKindsHelp() string {
	return `export copies the account's data into a database (--db), into files in a
directory (--out), or both in one pass, every kind of record:
` + wrap(strings.Join(kindNames(func(k export.Kind) bool { return !k.PerUser }), ", "), "  ", 76) + `
and with --per-user also:
` + wrap(strings.Join(kindNames(func(k export.Kind) bool { return k.PerUser }), ", "), "  ", 76) + ``
}

// safetyCultureExportHelp is the part of the help on --source safetyculture.
func safetyCultureExportHelp() string {
	return `--source safetyculture exports SafetyCulture Training's kinds instead
(SAFETYCULTURE_API_TOKEN, SAFETYCULTURE_BASE_URL):
` + wrap(strings.Join(export.KindNames(scsrc.Kinds(), func(k export.Kind) bool { return !k.PerUser }), ", "), "  ", 76) + `
and with --per-user also:
` + wrap(strings.Join(export.KindNames(scsrc.Kinds(), func(k export.Kind) bool { return k.PerUser }), ", "), "  ", 76) + `
into the same tables, each row marked with its source; the two exports
never touch each other's rows and may run at once. Its incremental
analytics kinds are fetched again from the cursor minus 2h15m (its
analytics arrive up to two hours late). Course progress is probed once
per run: when the service honours modifiedAfter it is fetched from the
cursor, and in full once the last full fetch is --max-age old (7 days
when 0); when it does not, it is fetched in full and mirrored every run. Each endpoint has its own limit;
--budget CLASS=N/WINDOW[,...] sets a class's (catalogue: 200/1m, other:
800/1m), and --redis shares each endpoint's budget.`
}

// exportStateHelp is the part of the help on the database, incremental
// kinds and resuming.
func exportStateHelp() string {
	return `--db takes sqlite:PATH or a postgres:// (postgresql://) URL; EDAPP_EXPORT_DB
is the default. Each kind has a table named after it, a row per record
keyed on the record's identity, and a raw column with the record as sent
(docs/export-database.md lists the tables). The database holds its own cursors: copy
it, and the next run continues from it. A password in the URL is never
printed; keep it off the command line, where ps and the shell's history
show it (a warning says so): set EDAPP_EXPORT_DB, or leave the password out
of the URL and let PostgreSQL's PGPASSWORD or ~/.pgpass supply it.

Kinds with a date filter are incremental:
` + wrap(strings.Join(kindNames(func(k export.Kind) bool { return k.Incremental }), ", "), "  ", 76) + `
A re-run fetches them from the cursor minus 10 minutes of overlap
(--overlap raises it; no less is taken). In a database a changed record
(an attempt since completed) is updated in place, and an attempt still open is fetched again on each run while it
started less than --open-window ago. The other kinds are fetched in full
on each run: the database drops the rows the service no longer returns,
a file is replaced. --since sets where a kind without a cursor starts
(default: everything); --full forgets the state of the kinds exported
(all, or those of --kinds) and starts them over.

A database commits rows in groups (up to 10,000 rows, or what a second
brought; SQLite about once a second, up to 100,000 rows) with the
progress they represent; files are written under a
temporary name and renamed when whole. Ctrl-C or a crash loses nothing:
the next run resumes after the last group committed, with no gaps and no
duplicates. The state also keeps what the run spent of the rate budget
(not with --redis, which keeps it itself): a resumed run waits for what is
left of the window instead of meeting 429s.
Two exports into one database or directory at once: the second waits up
to 10 seconds for a database, then is refused.`
}

// exportRunHelp is the part of the help on files, limits and output.
const exportRunHelp = `In files, new records of an incremental kind go to DIR/<kind>/part-NNNNNN.<ext>
and a changed record is written again as a new row: the last row for a key
is the latest. CSV files have one header row and the documented columns;
JSONL keeps every field. --format applies to --out; a directory keeps the
format of its first export. --since takes a date (2026-01-31), a datetime
(2026-01-31T08:00:00Z) or a duration back from now (7d, 36h, 2w).

The export reads through the SDK's bulk lane and stays within the account's
rate budget (1400 requests per 5 minutes). The kinds run at the same time;
--concurrency is the requests in flight for the whole export, across kinds
and parents. The default, 4, is enough: against the service's budget four in
flight use it all at any latency under about 0.85 s, and the bulk lane's
share of the budget, not the concurrency, bounds the job. A kind that needs
another's ids (lessons need the courses) starts as soon as they are known.
group_members comes from the users walk (each user's userGroups), not from a
request per group; group_children walks the children of each group whose
hasChildren is true.

--max-age 1h skips a mirrored kind whose last complete fetch, as the
destination recorded it, is younger than an hour: an hourly job then
fetches the catalog once a day with --max-age 24h, and the incremental
kinds every time. --full fetches the kinds it names whatever their age.
--per-user costs one request per user and kind (more for users with over
1000 records): with 5,000 users, about 10,000 requests, some 40 minutes of
the budget's bulk share (90%).

On a terminal a progress bar per kind shows records, records per second and
the time spent waiting for the budget; otherwise a log line per kind goes to
stderr. A summary goes to stdout.`

// engineOptions checks the flags and turns them into the engine's options.
func engineOptions(f exportFlags) (export.Options, error) {
	if err := checkExportFlags(f); err != nil {
		return export.Options{}, err
	}
	if least := leastOverlap(f.source); f.overlap != 0 && f.overlap < least {
		return export.Options{}, usagef("invalid --overlap %s: want %s or more for --source %s (0: %[2]s)", f.overlap, least, cmp.Or(f.source, sqldest.SourceEdApp))
	}
	since, err := parseSince(f.since, time.Now())
	if err != nil {
		return export.Options{}, usageError{err}
	}
	o := export.Options{Kinds: f.kinds, PerUser: f.perUser, Since: since, Full: f.full, Concurrency: f.concurrency,
		OpenWindow: f.openWindow, NoOpenWindow: f.openWindow == 0, MaxAge: f.maxAge, Overlap: f.overlap}
	for _, name := range f.kinds {
		k, ok := findKind(f.source, name)
		if !ok {
			return o, usagef("unknown kind %q: want some of %s", name, strings.Join(sourceKindNames(f.source), ","))
		}
		if k.PerUser && !f.perUser {
			return o, usagef("kind %s needs --per-user", name)
		}
	}
	return o, nil
}

// checkExportFlags refuses flags that are wrong on their own or together.
func checkExportFlags(f exportFlags) error {
	if f.source != "" && f.source != sqldest.SourceEdApp && f.source != sqldest.SourceSafetyCulture {
		return usagef("invalid --source %q: want edapp or safetyculture", f.source)
	}
	if f.out == "" && f.db == "" {
		return usagef("--db or --out is required (or EDAPP_EXPORT_DB)")
	}
	if f.format != "" && f.out == "" {
		return usagef("--format applies to --out only; a database has no format")
	}
	if f.format != "" && f.format != "csv" && f.format != "jsonl" {
		return usagef("invalid --format %q: want csv or jsonl", f.format)
	}
	if f.concurrency < 1 || f.concurrency > 64 {
		return usagef("invalid --concurrency %d: want 1 to 64", f.concurrency)
	}
	if f.openWindow < 0 {
		return usagef("invalid --open-window %s: must not be negative", f.openWindow)
	}
	if f.deadline < 0 {
		return usagef("invalid --deadline %s: must not be negative", f.deadline)
	}
	if f.historyKeep < 0 {
		return usagef("invalid --history-keep %s: must not be negative", f.historyKeep)
	}
	if f.maxAge < 0 {
		return usagef("invalid --max-age %s: must not be negative", f.maxAge)
	}
	return nil
}

// leastOverlap is the source's default overlap, the least --overlap it
// takes: SafetyCulture's analytics arrive up to 2 hours late.
func leastOverlap(source string) time.Duration {
	if source == sqldest.SourceSafetyCulture {
		return scsrc.Overlap
	}
	return export.Overlap
}

func findKind(source, name string) (export.Kind, bool) {
	list := edappsrc.Kinds()
	if source == sqldest.SourceSafetyCulture {
		list = scsrc.Kinds()
	}
	for _, k := range list {
		if k.Name == name {
			return k, true
		}
	}
	return export.Kind{}, false
}

// exportRun opens the destinations, then makes one call into the engine.
// A bad --db URL is a usage error before any request is sent.
func exportRun(ctx context.Context, o *exportOptions) error {
	if o.flags.source == sqldest.SourceSafetyCulture {
		return safetyCultureExportRun(ctx, o)
	}
	opts := o.engine
	dests, closeDests, err := exportDestinations(ctx, o)
	if err != nil {
		return err
	}
	defer closeDests()
	if err := seedBudget(ctx, &o.budget, dests); err != nil {
		return err
	}
	c, err := o.Client()
	if err != nil {
		return err
	}
	opts.Budget = spender(c)
	prog := o.Progress(context.Background(), isTerminal(o.IO.ErrOut))
	opts.Progress = progressAdapter{prog}
	opts.StopOn = fatal
	sum, err := o.RunExport(ctx, edappsrc.New(c.Client), opts, dests...)
	return exportDone(o, sum, prog, rebuildIdentities(ctx, dests, err))
}

// exportDone reports a run's outcome: its stats and summary, and the
// rejects exit code for records rejected.
func exportDone(o *exportOptions, sum *export.Report, prog progress, err error) error {
	o.IO.stats.stats.exportDone(sum)
	prog.wait()
	rejected := printSummary(o.IO, sum)
	if err == nil && rejected > 0 {
		return rejectedError{n: rejected, code: o.flags.rejectsExitCode}
	}
	return err
}

// printSummary writes a line per kind of the run, warns of records dated
// in the future, and returns the records rejected in all.
func printSummary(s *ioStreams, sum *export.Report) (rejected int) {
	if sum == nil {
		return 0
	}
	for _, r := range sum.Kinds {
		rejected += r.Rejected
		if r.Skipped {
			fmt.Fprintf(s.Out, "%-28s not fetched: complete at %s, younger than --max-age\n", r.Kind, r.Fetched.Local().Format("2006-01-02 15:04:05 MST"))
			continue
		}
		fmt.Fprintf(s.Out, "%-28s %9d records, %d requests%s%s  %s\n", r.Kind, r.Records, r.Requests, retries(r), dropped(r.Dropped), strings.Join(r.Notes, "; "))
		if r.Future > 0 {
			fmt.Fprintf(s.ErrOut, "edapp: warning: %s: %d record(s) dated after the service's clock (%s), the latest %s; exported, and the cursor stays at %s\n",
				r.Kind, r.Future, r.Started.Format(time.RFC3339), r.LatestFuture.Format(time.RFC3339Nano), r.Started.Format(time.RFC3339))
		}
	}
	return rejected
}

// retries says how many attempts beyond one per request a kind took.
func retries(r export.KindResult) string {
	if r.Attempts <= r.Requests {
		return ""
	}
	return fmt.Sprintf(" (%d retried)", r.Attempts-r.Requests)
}

func dropped(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d odd values left out", n)
}

// exportDestinations opens the database and the directory the flags
// name; closeDests releases them.
func exportDestinations(ctx context.Context, o *exportOptions) (dests []export.Destination, closeDests func(), err error) {
	f := o.flags
	closeDests = func() {}
	if f.db != "" {
		db, dest, err := openExportDB(ctx, o, f.db, sqldest.WithSource(f.source), sqldest.WithBulkLoader(pgxCopier{}), sqldest.WithHistoryKeep(f.historyKeep))
		if err != nil {
			return nil, nil, err
		}
		closeDests = func() { dest.Close(); db.Close() }
		dests = append(dests, dest)
	}
	if f.out != "" {
		files, err := o.OpenFiles(f.out, filedest.WithFormat(f.format), filedest.WithFresh(f.full))
		if err != nil {
			closeDests()
			if errors.Is(err, filedest.ErrFormat) {
				err = usageError{err}
			}
			return nil, nil, err
		}
		dests = append(dests, files)
		closeDB := closeDests
		closeDests = func() { files.Close(); closeDB() }
	}
	return dests, closeDests, nil
}

// openExportDB opens the --db database and takes it for this export.
func openExportDB(ctx context.Context, o *exportOptions, raw string, opts ...sqldest.DatabaseOption) (*sql.DB, *sqldest.Database, error) {
	db, target, err := o.OpenDB(ctx, raw)
	if err != nil {
		return nil, nil, err
	}
	// Emails are matched in NFC (identities), with the module's tables.
	opts = append([]sqldest.DatabaseOption{sqldest.WithNormalizer(norm.NFC.String)}, opts...)
	dest, err := o.OpenDatabase(ctx, db, target.Dialect, opts...)
	if err != nil {
		db.Close()
		if errors.Is(err, sqldest.ErrSchemaTooNew) {
			return nil, nil, fmt.Errorf("database %s: %w: upgrade edapp", target.Redacted, err)
		}
		return nil, nil, fmt.Errorf("database %s: %s", target.Redacted, cleanDBError(target, err))
	}
	if notice := repairedNotice(dest.Repaired()); notice != "" {
		fmt.Fprintf(o.IO.ErrOut, "edapp: %s\n", notice)
	}
	return db, dest, nil
}

// progressAdapter reports the engine's progress on the CLI's bars or log
// lines.
type progressAdapter struct{ p progress }

func (p progressAdapter) Track(kind string) export.Tracker {
	return trackerAdapter{p.p.track(kind)}
}

type trackerAdapter struct{ t tracker }

func (t trackerAdapter) SetTotal(n int)                  { t.t.setTotal(n) }
func (t trackerAdapter) Parents(done, total int)         { t.t.parents(done, total) }
func (t trackerAdapter) Done(err error)                  { t.t.done(err) }
func (t trackerAdapter) Add(n int, waited time.Duration) { t.t.add(n, waited) }

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
