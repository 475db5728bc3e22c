package main

import (
	"context"
	"database/sql"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/cmd/edapp/internal/fakeserve"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/filedest"
	"github.com/edapp-go/edapp/export/sqldest"
	"github.com/edapp-go/edapp/usersync"
	"github.com/spf13/cobra"
)

// withPageSize makes the export ask for n records a request.
func withPageSize(f *factory, n int) {
	run := f.RunExport
	f.RunExport = func(ctx context.Context, src export.Source, o export.Options, dests ...export.Destination) (*export.Report, error) {
		o.PageSize = n
		return run(ctx, src, o, dests...)
	}
}

// withPartSize makes the export's files hold n records a part.
func withPartSize(f *factory, n int) {
	open := f.OpenFiles
	f.OpenFiles = func(dir string, opts ...filedest.Option) (*filedest.Files, error) {
		return open(dir, append(opts, filedest.WithPartSize(n))...)
	}
}

// withLockWait makes the export wait d for a database another holds.
func withLockWait(f *factory, d time.Duration) {
	open := f.OpenDatabase
	f.OpenDatabase = func(ctx context.Context, db *sql.DB, dl sqldest.Dialect, opts ...sqldest.DatabaseOption) (*sqldest.Database, error) {
		return open(ctx, db, dl, append(opts, sqldest.WithLockWait(d))...)
	}
}

// onRecords calls hook after each record the export fetches, with the
// kind's running count.
func onRecords(f *factory, hook func(kind string, n int)) {
	run := f.RunExport
	f.RunExport = func(ctx context.Context, src export.Source, o export.Options, dests ...export.Destination) (*export.Report, error) {
		o.Progress = hookedProgress{o.Progress, hook}
		return run(ctx, src, o, dests...)
	}
}

// withClientOptions puts opts after the client's options from the flags.
func withClientOptions(f *factory, opts ...edapp.Option) {
	newClient := f.NewClient
	f.NewClient = func(token string, o ...edapp.Option) (*edapp.Client, error) {
		return newClient(token, append(o, opts...)...)
	}
}

type hookedProgress struct {
	export.Progress
	hook func(kind string, n int)
}

func (p hookedProgress) Track(kind string) export.Tracker {
	return &hookedTracker{Tracker: p.Progress.Track(kind), kind: kind, hook: p.hook}
}

type hookedTracker struct {
	export.Tracker
	kind string
	n    int
	hook func(kind string, n int)
}

func (t *hookedTracker) Add(n int, waited time.Duration) {
	t.Tracker.Add(n, waited)
	if n > 0 {
		t.n += n
		t.hook(t.kind, t.n)
	}
}

// newTestFactory is a factory with empty streams and the environment e.
func newTestFactory(e env) *factory {
	return newFactory(newIOStreams(strings.NewReader(""), io.Discard, io.Discard), e.get)
}

// execute runs cmd alone with args.
func execute(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	return cmd.Execute()
}

// wantUsage fails unless err is a usage error.
func wantUsage(t *testing.T, err error, args []string) {
	t.Helper()
	var u usageError
	if !errors.As(err, &u) {
		t.Errorf("%q: error %v, want a usage error", args, err)
	}
}

func TestNewCmdExportFlags(t *testing.T) {
	t.Parallel()
	f := newTestFactory(env{"EDAPP_EXPORT_DB": "sqlite:env.db"})
	var got *exportOptions
	runF := func(o *exportOptions) error { got = o; return nil }
	err := execute(newCmdExport(f, runF), "--kinds", "users,courses", "--concurrency", "8", "--open-window", "0", "--since", "2026-01-31", "--max-age", "1h")
	if err != nil {
		t.Fatal(err)
	}
	want := export.Options{Kinds: []string{"users", "courses"}, Concurrency: 8, NoOpenWindow: true, MaxAge: time.Hour,
		Since: time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)}
	if got.flags.db != "sqlite:env.db" || !reflect.DeepEqual(got.engine, want) {
		t.Errorf("parsed to db %q and %+v, want sqlite:env.db and %+v", got.flags.db, got.engine, want)
	}
	if err := execute(newCmdExport(f, runF), "--db", "sqlite:flag.db"); err != nil || got.flags.db != "sqlite:flag.db" {
		t.Errorf("--db beats EDAPP_EXPORT_DB: %v, %q", err, got.flags.db)
	}
	for _, args := range [][]string{
		{"--concurrency", "0"}, {"--out", "d", "--format", "xml"}, {"--format", "csv"}, {"--kinds", "nope"},
		{"--kinds", "lesson_progress"}, {"--open-window", "-1s"}, {"--max-age", "-1h"}, {"--since", "soon"},
	} {
		got = nil
		wantUsage(t, execute(newCmdExport(f, runF), args...), args)
		if got != nil {
			t.Errorf("%q reached the run", args)
		}
	}
	got = nil
	wantUsage(t, execute(newCmdExport(newTestFactory(env{}), runF)), nil)
	if got != nil {
		t.Error("an export without --db, --out or EDAPP_EXPORT_DB reached the run")
	}
}

func TestNewCmdUsersSyncFlags(t *testing.T) {
	t.Parallel()
	f := newTestFactory(env{})
	var got *syncOptions
	runF := func(o *syncOptions) error { got = o; return nil }
	if err := execute(newCmdUsersSync(f, runF), "--csv", "users.csv"); err != nil {
		t.Fatal(err)
	}
	if got.file != "users.csv" || got.apply || got.engine != (usersync.Options{}) || got.maxDeletesSet {
		t.Errorf("parsed to %+v", got)
	}
	if err := execute(newCmdUsersSync(f, runF), "--csv", "-", "--apply", "--delete-missing", "--max-deletes", "0"); err != nil {
		t.Fatal(err)
	}
	if !got.apply || got.engine != (usersync.Options{DeleteMissing: true, MaxDeletes: 0}) || !got.maxDeletesSet {
		t.Errorf("parsed to %+v", got)
	}
	for _, args := range [][]string{
		{}, {"--csv", "u.csv", "--max-deletes", "3"}, {"--csv", "u.csv", "--delete-missing", "--max-deletes", "-1"},
	} {
		got = nil
		wantUsage(t, execute(newCmdUsersSync(f, runF), args...), args)
		if got != nil {
			t.Errorf("%q reached the run", args)
		}
	}
}

func TestNewCmdWebhooksCreateFlags(t *testing.T) {
	t.Parallel()
	f := newTestFactory(env{})
	var got *webhooksCreateOptions
	runF := func(o *webhooksCreateOptions) error { got = o; return nil }
	err := execute(newCmdWebhooksCreate(f, runF), "--event", "LessonCompletedEvent", "--url", "https://example.com/hook",
		"--header", "X-Secret=a=b", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	if got.event != edapp.EventLessonCompleted || !reflect.DeepEqual(got.headers, map[string]string{"X-Secret": "a=b"}) {
		t.Errorf("parsed to %q %v", got.event, got.headers)
	}
	for _, args := range [][]string{
		{"--url", "https://example.com/hook"}, {"--event", "Nope", "--url", "https://example.com/hook"},
		{"--event", "LessonCompletedEvent", "--url", "/relative"}, {"--event", "LessonCompletedEvent", "--url", "https://x/", "--header", "novalue"},
		{"--event", "LessonCompletedEvent", "--url", "https://x/", "-o", "xml"},
	} {
		got = nil
		wantUsage(t, execute(newCmdWebhooksCreate(f, runF), args...), args)
		if got != nil {
			t.Errorf("%q reached the run", args)
		}
	}
}

func TestNewCmdWebhooksSendTestFlags(t *testing.T) {
	t.Parallel()
	var got *sendTestOptions
	runF := func(o *sendTestOptions) error { got = o; return nil }
	err := execute(newCmdWebhooksSendTest(newTestFactory(env{}), runF), "--event", "CourseCompletedEvent", "--url", "http://127.0.0.1:1/", "--timeout", "3s")
	if err != nil {
		t.Fatal(err)
	}
	if got.event != edapp.EventCourseCompleted || got.timeout != 3*time.Second || got.hook.url != "http://127.0.0.1:1/" {
		t.Errorf("parsed to %+v", got)
	}
}

func TestNewCmdFakeFlags(t *testing.T) {
	t.Parallel()
	f := newTestFactory(env{})
	var got *fakeserve.Flags
	runF := func(o *fakeserve.Flags) error { got = o; return nil }
	if err := execute(newCmdFake(f, runF), "--seed", "--users", "5", "--attempts", "9", "--budget", "30/10s", "--addr", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if !got.Seed || got.Account.Users != 5 || got.Account.Attempts != 9 || got.Budget.Limit != 30 || got.Addr != "127.0.0.1:0" {
		t.Errorf("parsed to %+v", got)
	}
	for _, args := range [][]string{{"--latency", "-1s"}, {"--redeliver", "-1"}, {"--groups", "-2"}} {
		got = nil
		wantUsage(t, execute(newCmdFake(f, runF), args...), args)
		if got != nil {
			t.Errorf("%q reached the run", args)
		}
	}
}

// TestPastTense: every kind of action has its word.
func TestPastTense(t *testing.T) {
	t.Parallel()
	for _, k := range []usersync.Kind{usersync.Create, usersync.Update, usersync.Delete} {
		if w := pastTense[k]; !strings.HasSuffix(w, "d") || !strings.HasPrefix(w, string(k)[:5]) {
			t.Errorf("%s: %q", k, w)
		}
	}
}

func TestNewCmdWebhooksListAndDeleteFlags(t *testing.T) {
	t.Parallel()
	f := newTestFactory(env{})
	var view *webhookView
	listF := func(o *webhooksListOptions) error { view = &o.webhookView; return nil }
	if err := execute(newCmdWebhooksList(f, listF), "--show-secrets", "-o", "table"); err != nil {
		t.Fatal(err)
	}
	if !view.showSecrets || view.out.format != "table" {
		t.Errorf("parsed to %+v", view)
	}
	view = nil
	wantUsage(t, execute(newCmdWebhooksList(f, listF), "-o", "xml"), []string{"-o", "xml"})
	if view != nil {
		t.Error("-o xml reached the run")
	}

	var ids []string
	deleteF := func(o *webhooksDeleteOptions) error { ids = o.ids; return nil }
	if err := execute(newCmdWebhooksDelete(f, deleteF), "7", "9"); err != nil || !reflect.DeepEqual(ids, []string{"7", "9"}) {
		t.Errorf("delete 7 9: %v, %q", err, ids)
	}
	ids = nil
	wantUsage(t, execute(newCmdWebhooksDelete(f, deleteF)), nil)
	if ids != nil {
		t.Error("delete without ids reached the run")
	}
}

func TestNewCmdWebhooksServeFlags(t *testing.T) {
	t.Parallel()
	const secret = "flag-secret-never-printed"
	f := newTestFactory(env{"EDAPP_EXPORT_DB": "sqlite:env.db", "EDAPP_WEBHOOK_SECRET": "X-Env=" + secret})
	var got *serveConfig
	runF := func(c *serveConfig) error { got = c; return nil }
	if err := execute(newCmdWebhooksServe(f, runF), "--path", "/edapp/events", "--max-in-flight", "3"); err != nil {
		t.Fatal(err)
	}
	if got.db != "sqlite:env.db" || got.secretName != "X-Env" || got.secretValue != secret ||
		got.path != "/edapp/events" || got.maxInFlight != 3 || got.addr != "127.0.0.1:8080" || got.log == nil {
		t.Errorf("parsed to %+v", got.serveOptions)
	}
	err := execute(newCmdWebhooksServe(f, runF), "--db", "sqlite:flag.db", "--secret-header", "X-Flag="+secret, "--log-format", "json")
	if err != nil || got.db != "sqlite:flag.db" || got.secretName != "X-Flag" {
		t.Errorf("the flags beat the environment: %v, %+v", err, got.serveOptions)
	}
	bare := newTestFactory(env{})
	for _, args := range [][]string{
		{"--secret-header", "X=v"},
		{"--db", "sqlite:x.db"},
		{"--db", "sqlite:x.db", "--secret-header", "X-Hook=" + secret, "--insecure-no-secret"},
		{"--db", "sqlite:x.db", "--secret-header", "=" + secret},
		{"--db", "sqlite:x.db", "--secret-header", "X-Hook:" + secret},
		{"--db", "sqlite:x.db", "--secret-header", "X Hook=" + secret},
		{"--db", "sqlite:x.db", "--insecure-no-secret", "--max-in-flight", "0"},
		{"--db", "sqlite:x.db", "--insecure-no-secret", "--path", "healthz"},
		{"--db", "sqlite:x.db", "--insecure-no-secret", "--path", "/healthz"},
		{"--db", "sqlite:x.db", "--insecure-no-secret", "--path", "/hooks/{id}"},
		{"--db", "sqlite:x.db", "--insecure-no-secret", "--path", "/a b"},
		{"--db", "sqlite:x.db", "--insecure-no-secret", "--log-format", "xml"},
	} {
		got = nil
		err := execute(newCmdWebhooksServe(bare, runF), args...)
		wantUsage(t, err, args)
		if got != nil {
			t.Errorf("%q reached the run", args)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("%q: the error quotes the secret: %v", args, err)
		}
	}
}

// TestFactoryMethodSet: the factory is what it hands out and constructors,
// with no method of its own, and the commands' runs are free functions of
// their options.
func TestFactoryMethodSet(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	names, _ := filepath.Glob("*.go")
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil {
				continue
			}
			recv := fn.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			if id, ok := recv.(*ast.Ident); ok && id.Name == "factory" {
				t.Errorf("%s: factory has a method %s", fset.Position(fn.Pos()), fn.Name.Name)
			}
		}
	}
	typ := reflect.TypeFor[factory]()
	for i := range typ.NumField() {
		if fd := typ.Field(i); fd.Type.Kind() != reflect.Func && fd.Name != "IO" && fd.Name != "Global" {
			t.Errorf("factory.%s is a %s, not a constructor", fd.Name, fd.Type)
		}
	}
	var (
		_ func(context.Context, *exportOptions) error        = exportRun
		_ func(context.Context, *syncOptions) error          = syncRun
		_ func(context.Context, *serveConfig) error          = serveRun
		_ func(context.Context, *migrateReportOptions) error = reportRun
	)
}

func TestNewCmdMigrateReportFlags(t *testing.T) {
	t.Parallel()
	f := newTestFactory(env{"EDAPP_EXPORT_DB": "sqlite:env.db"})
	var got *migrateReportOptions
	runF := func(o *migrateReportOptions) error { got = o; return nil }
	err := execute(newCmdMigrateReport(f, runF), "-o", "csv", "--moved-at", "2026-11-01", "--fail-on-differences", "--out", "r.csv")
	if err != nil {
		t.Fatal(err)
	}
	if got.db != "sqlite:env.db" || got.format != "csv" || got.out != "r.csv" || !got.failOnDifferences ||
		!got.movedAt.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("parsed to %+v", got)
	}
	if err := execute(newCmdMigrateReport(f, runF), "--db", "sqlite:flag.db", "--moved-at", "2026-11-01T09:30:00+02:00"); err != nil ||
		got.db != "sqlite:flag.db" || !got.movedAt.Equal(time.Date(2026, 11, 1, 7, 30, 0, 0, time.UTC)) {
		t.Errorf("--db beats EDAPP_EXPORT_DB, --moved-at takes RFC 3339: %v, %+v", err, got)
	}
	for _, args := range [][]string{{"-o", "xml"}, {"--moved-at", "yesterday"}} {
		got = nil
		wantUsage(t, execute(newCmdMigrateReport(f, runF), args...), args)
		if got != nil {
			t.Errorf("%q reached the run", args)
		}
	}
	got = nil
	wantUsage(t, execute(newCmdMigrateReport(newTestFactory(env{}), runF)), nil)
	if got != nil {
		t.Error("a report without --db or EDAPP_EXPORT_DB reached the run")
	}
}
