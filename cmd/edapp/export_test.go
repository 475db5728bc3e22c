package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export/edappsrc"
	"github.com/edapp-go/edapp/export/sqldest"
)

// exportState is the part of the files destination's state file the
// tests read.
type exportState struct {
	Format string `json:"format"`
	Kinds  map[string]*struct {
		Cursor  *time.Time              `json:"cursor"`
		Parts   []struct{ File string } `json:"parts"`
		Records int                     `json:"records"`
	} `json:"kinds"`
}

func loadState(t *testing.T, dir string) exportState {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".edapp-export.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st exportState
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// exportFixture is the demo account plus n users with a completion each
// of every lesson of the first demo course, on a fake made with opts.
func exportFixture(t *testing.T, n int, opts ...edapptest.Option) (*edapptest.Server, fakedata.Demo) {
	t.Helper()
	srv := edapptest.New(t, opts...)
	t.Cleanup(srv.Close)
	demo, err := fakedata.SeedDemo(srv)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		id, err := srv.AddUser(edapptest.UserSpec{Username: fmt.Sprintf("learner%03d", i), ExternalID: fmt.Sprintf("L%03d", i), Groups: []string{demo.GroupIDs[0]}})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range demo.LessonIDs[0] {
			if err := srv.CompleteLesson(id, l, float64(60+i%40)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return srv, demo
}

// runExport runs `edapp export` with test hooks set on the app.
func runExport(t *testing.T, ctx context.Context, srv *edapptest.Server, setup func(*factory), args ...string) result {
	t.Helper()
	r := runExportEnv(ctx, fakeEnv(srv), setup, args...)
	noToken(t, srv.Token, r)
	return r
}

// runExportEnv runs `edapp export` in the environment e, with test hooks
// set on the app.
func runExportEnv(ctx context.Context, e env, setup func(*factory), args ...string) result {
	var out, errOut strings.Builder
	f := newFactory(newIOStreams(strings.NewReader(""), &out, &errOut), e.get)
	if setup != nil {
		setup(f)
	}
	code := runCommand(ctx, f, append([]string{"export"}, args...))
	return result{code, out.String(), errOut.String()}
}

// readCSV reads every data row of the CSV files of a kind (its file, or
// its parts in order), keyed by header name.
func readKind(t *testing.T, dir, kind string) []map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, kind, "part-*.csv"))
	sort.Strings(files)
	if single := filepath.Join(dir, kind+".csv"); len(files) == 0 {
		files = []string{single}
	}
	var rows []map[string]string
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		cr := csv.NewReader(fh)
		header, err := cr.Read()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for {
			rec, err := cr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			row := map[string]string{}
			for i, h := range header {
				row[h] = rec[i]
			}
			rows = append(rows, row)
		}
		fh.Close()
	}
	return rows
}

// apiAttemptIDs lists the attempt ids the service holds.
func apiAttemptIDs(t *testing.T, srv *edapptest.Server) []string {
	t.Helper()
	var ids []string
	for a, err := range srv.Client().Analytics.AllAttempts(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	slices.Sort(ids)
	return ids
}

func column(rows []map[string]string, name string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r[name])
	}
	slices.Sort(out)
	return out
}

func TestExportFullThenNothingNew(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 5)
	dir := t.TempDir()
	r := runExport(t, context.Background(), srv, nil, "--out", dir)
	wantCode(t, r, exitOK)

	if got, want := column(readKind(t, dir, "attempts"), "id"), apiAttemptIDs(t, srv); !slices.Equal(got, want) {
		t.Errorf("attempts: exported %d, service has %d", len(got), len(want))
	} else if line := fmt.Sprintf("attempts: done, %d/%d records", len(want), len(want)); !strings.Contains(r.stderr, line) {
		// Not a terminal: a log line per kind, with the total from the
		// first page's count.
		t.Errorf("stderr has no %q:\n%s", line, r.stderr)
	}
	users := readKind(t, dir, "users")
	if len(users) != 9 {
		t.Errorf("%d users, want 9", len(users))
	}
	if members := readKind(t, dir, "group_members"); len(members) < 9 {
		t.Errorf("%d group memberships", len(members))
	}
	if lessons := readKind(t, dir, "lessons"); len(lessons) == 0 || lessons[0]["courseId"] == "" {
		t.Errorf("lessons: %v", lessons)
	}
	for _, k := range []string{"course_progress", "lesson_progress_events", "survey_answers", "courses", "collections", "collection_courses", "groups", "course_statistics", "lesson_statistics", "survey_questions"} {
		if len(readKind(t, dir, k)) == 0 {
			t.Errorf("%s is empty", k)
		}
	}

	// A re-run adds nothing.
	r = runExport(t, context.Background(), srv, nil, "--out", dir)
	wantCode(t, r, exitOK)
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if strings.Contains(line, "new records") && !strings.Contains(line, " 0 new records") {
			t.Errorf("re-run added records: %s", line)
		}
	}
	if got := len(readKind(t, dir, "attempts")); got != len(apiAttemptIDs(t, srv)) {
		t.Errorf("after re-run: %d attempts exported", got)
	}
	if parts, _ := filepath.Glob(filepath.Join(dir, "attempts", "part-*")); len(parts) != 1 {
		t.Errorf("re-run wrote parts: %v", parts)
	}
}

func TestExportAddsExactlyTheNewRecords(t *testing.T) {
	t.Parallel()
	srv, demo := exportFixture(t, 3)
	dir := t.TempDir()
	wantCode(t, runExport(t, context.Background(), srv, nil, "--out", dir), exitOK)
	before := map[string]int{}
	for _, k := range []string{"attempts", "lesson_progress_events", "course_progress"} {
		before[k] = len(readKind(t, dir, k))
	}
	attemptsBefore := apiAttemptIDs(t, srv)

	// New progress: dave completes the first lesson of Fire Safety.
	if err := srv.CompleteLesson(demo.UserIDs[3], demo.LessonIDs[1][0], 95); err != nil {
		t.Fatal(err)
	}
	r := runExport(t, context.Background(), srv, nil, "--out", dir)
	wantCode(t, r, exitOK)

	attempts := readKind(t, dir, "attempts")
	if got, want := column(attempts, "id"), apiAttemptIDs(t, srv); !slices.Equal(got, want) {
		t.Errorf("attempts exported %v, service has %v", got, want)
	}
	if got, want := len(attempts)-before["attempts"], len(apiAttemptIDs(t, srv))-len(attemptsBefore); got != want || want == 0 {
		t.Errorf("%d new attempts exported, %d new in the service", got, want)
	}
	events := readKind(t, dir, "lesson_progress_events")
	var apiEvents int
	for _, err := range srv.Client().Analytics.AllLessonProgressEvents(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		apiEvents++
	}
	if len(events) != apiEvents {
		t.Errorf("%d events exported, service has %d", len(events), apiEvents)
	}
	if got := len(readKind(t, dir, "course_progress")) - before["course_progress"]; got != 1 {
		t.Errorf("%d course progress rows added, want 1 (dave in Fire Safety)", got)
	}
	newRows := readKind(t, dir, "course_progress")[before["course_progress"]:]
	if len(newRows) == 1 && newRows[0]["userId"] != demo.UserIDs[3] {
		t.Errorf("new course progress row is for %s", newRows[0]["userId"])
	}
}

func TestExportInterruptedThenResumed(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 30)
	dir := t.TempDir()
	want := apiAttemptIDs(t, srv)
	if len(want) < 60 {
		t.Fatalf("fixture has %d attempts", len(want))
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := runExport(t, ctx, srv, func(f *factory) {
		withPartSize(f, 10)
		onRecords(f, func(kind string, n int) {
			if kind == "attempts" && n == 25 {
				cancel()
			}
		})
	}, "--out", dir)
	wantCode(t, r, exitError)
	if !regexp.MustCompile(`interrupted in [a-z_, ]*\battempts\b`).MatchString(r.stderr) {
		t.Errorf("stderr: %s", r.stderr)
	}
	st := loadState(t, dir)
	if ks := st.Kinds["attempts"]; ks == nil || len(ks.Parts) != 2 || ks.Cursor != nil {
		t.Fatalf("state after the interruption: %+v", ks)
	}
	// A crash after a part was renamed but before the state recorded it
	// leaves an orphan; the resumed run must not count it.
	orphan := filepath.Join(dir, "attempts", "part-000003.csv")
	if err := os.WriteFile(orphan, []byte("id\nbogus\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".users.csv.123.tmp", ".mine.tmp"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	r = runExport(t, context.Background(), srv, func(f *factory) { withPartSize(f, 10) }, "--out", dir)
	wantCode(t, r, exitOK)
	got := column(readKind(t, dir, "attempts"), "id")
	if !slices.Equal(got, want) {
		t.Errorf("after resume: %d attempts exported (%d distinct), service has %d", len(got), len(slices.Compact(slices.Clone(got))), len(want))
	}
	if _, err := os.Stat(filepath.Join(dir, ".users.csv.123.tmp")); !os.IsNotExist(err) {
		t.Error("a temporary file was left")
	}
	if _, err := os.Stat(filepath.Join(dir, ".mine.tmp")); err != nil {
		t.Errorf("a file that is not the export's was removed: %v", err)
	}
}

func TestExportJSONLKeepsEveryField(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 2)
	dir := t.TempDir()
	r := runExport(t, context.Background(), srv, nil, "--out", dir, "--format", "jsonl", "--kinds", "attempts,users,lessons")
	wantCode(t, r, exitOK)
	f, err := os.Open(filepath.Join(dir, "attempts", "part-000001.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		attempts, _ := findKind(sqldest.SourceEdApp, "attempts")
		for _, c := range attempts.Columns {
			if _, ok := m[c]; !ok {
				t.Errorf("line %d has no %s", n+1, c)
			}
		}
		n++
	}
	if n != len(apiAttemptIDs(t, srv)) {
		t.Errorf("%d lines", n)
	}
	// Switching format needs --full.
	r = runExport(t, context.Background(), srv, nil, "--out", dir, "--format", "csv")
	wantCode(t, r, exitUsage)
	r = runExport(t, context.Background(), srv, nil, "--out", dir, "--format", "csv", "--full", "--kinds", "attempts")
	wantCode(t, r, exitOK)
	if _, err := os.Stat(filepath.Join(dir, "attempts", "part-000001.jsonl")); !os.IsNotExist(err) {
		t.Error("--full left the old parts")
	}
	// --full with --kinds starts only those kinds over.
	wantCode(t, runExport(t, context.Background(), srv, nil, "--out", dir, "--kinds", "attempts,lesson_progress_events"), exitOK)
	r = runExport(t, context.Background(), srv, nil, "--out", dir, "--full", "--kinds", "attempts")
	wantCode(t, r, exitOK)
	st := loadState(t, dir)
	if ks := st.Kinds["lesson_progress_events"]; ks == nil || ks.Cursor == nil || len(ks.Parts) != 1 {
		t.Errorf("--full --kinds attempts touched lesson_progress_events: %+v", ks)
	}
	if ks := st.Kinds["attempts"]; ks == nil || len(ks.Parts) != 1 || ks.Records != len(apiAttemptIDs(t, srv)) {
		t.Errorf("attempts after --full: %+v", ks)
	}
}

func TestExportCSVHeaders(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 1)
	dir := t.TempDir()
	wantCode(t, runExport(t, context.Background(), srv, nil, "--out", dir, "--per-user"), exitOK)
	var b strings.Builder
	for _, k := range edappsrc.Kinds() {
		file := filepath.Join(dir, k.Name+".csv")
		if k.Incremental {
			file = filepath.Join(dir, k.Name, "part-000001.csv")
		}
		fh, err := os.Open(file)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		line, _ := bufio.NewReader(fh).ReadString('\n')
		fh.Close()
		fmt.Fprintf(&b, "%s: %s", k.Name, line)
	}
	golden(t, "export_headers.golden", b.String())
}

func TestExportPerUser(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 2)
	dir := t.TempDir()
	r := runExport(t, context.Background(), srv, nil, "--out", dir, "--per-user", "--kinds", "user_lesson_progress,user_lesson_progress_events")
	wantCode(t, r, exitOK)
	if len(readKind(t, dir, "user_lesson_progress")) == 0 || len(readKind(t, dir, "user_lesson_progress_events")) == 0 {
		t.Error("per-user kinds are empty")
	}
	if !strings.Contains(r.stderr, "from 6/6 parents") {
		t.Errorf("the log lines do not count the users done:\n%s", r.stderr)
	}
	r = runExport(t, context.Background(), srv, nil, "--out", dir, "--per-user", "--kinds", "user_lesson_progress_events")
	wantCode(t, r, exitOK)
	if !strings.Contains(r.stdout, " 0 new records") {
		t.Errorf("re-run: %s", r.stdout)
	}
}

func TestExportUsage(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	defer srv.Close()
	dir := t.TempDir()
	for _, args := range [][]string{
		{},
		{"--out", dir, "--format", "xml"},
		{"--out", dir, "--since", "yesterday"},
		{"--out", dir, "--kinds", "nope"},
		{"--out", dir, "--kinds", "user_lesson_progress"},
		{"--out", dir, "--concurrency", "0"},
	} {
		wantCode(t, runExport(t, context.Background(), srv, nil, args...), exitUsage)
	}
}

func TestParseSince(t *testing.T) {
	t.Parallel()
	now := mustTime(t, "2026-03-10T12:00:00Z")
	for in, want := range map[string]string{
		"2026-01-31":           "2026-01-31T00:00:00Z",
		"2026-01-31T08:00:00Z": "2026-01-31T08:00:00Z",
		"2026-01-31 08:00:00":  "2026-01-31T08:00:00Z",
		"72h":                  "2026-03-07T12:00:00Z",
	} {
		got, err := parseSince(in, now)
		if err != nil || !got.Equal(mustTime(t, want)) {
			t.Errorf("parseSince(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := edapp.ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return v.Time
}

// withUnknownField wraps the fake so that every record of every list
// answer carries a field no SDK version knows.
func withUnknownField(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		var env map[string]json.RawMessage
		var items []map[string]any
		switch {
		case json.Unmarshal(body, &items) == nil:
			for _, it := range items {
				it["futureField"] = map[string]any{"x": 1}
			}
			body, _ = json.Marshal(items)
		case json.Unmarshal(body, &env) == nil && env["items"] != nil:
			if json.Unmarshal(env["items"], &items) == nil {
				for _, it := range items {
					it["futureField"] = map[string]any{"x": 1}
				}
				env["items"], _ = json.Marshal(items)
				body, _ = json.Marshal(env)
			}
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
}

func TestExportJSONLKeepsUnknownFields(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 1)
	proxy := httptest.NewServer(withUnknownField(srv.Handler()))
	defer proxy.Close()
	dir := t.TempDir()
	r := runEnv(t, env{"EDAPP_API_TOKEN": srv.Token, "EDAPP_BASE_URL": proxy.URL}, "export", "--out", dir, "--format", "jsonl", "--per-user")
	wantCode(t, r, exitOK)
	for _, k := range edappsrc.Kinds() {
		if k.Name == "group_members" || k.Name == "group_children" || k.Name == "collection_courses" {
			continue // the export's own rows, built from two records
		}
		files, _ := filepath.Glob(filepath.Join(dir, k.Name, "part-*.jsonl"))
		if !k.Incremental {
			files = []string{filepath.Join(dir, k.Name+".jsonl")}
		}
		lines := 0
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if line == "" {
					continue
				}
				lines++
				var m map[string]json.RawMessage
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("%s: %v", k.Name, err)
				}
				if string(m["futureField"]) != `{"x":1}` {
					t.Errorf("%s lost the unknown field: %s", k.Name, line)
					break
				}
			}
		}
		if lines == 0 {
			t.Errorf("%s: no records to check", k.Name)
		}
	}
}
