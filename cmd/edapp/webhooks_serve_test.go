package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/edapp-go/edapp/webhook"
)

const (
	hookHeader = "X-Hook-Secret"
	hookSecret = "inbox-secret-never-printed"
)

// servedInbox is "edapp webhooks serve" running in the test process.
type servedInbox struct {
	url  string // http://addr
	log  *syncBuffer
	stop func() int
}

// listeningRE finds the address in serve's first log line, text or JSON.
var listeningRE = regexp.MustCompile(`edapp webhooks serve: listening"[ ,]"?addr"?[=:]"?([^"\s]+)`)

// startInbox runs "edapp webhooks serve" on dbURL with the test secret and
// args, until the test ends or stop is called.
func startInbox(t testing.TB, dbURL string, args ...string) *servedInbox {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	in := &servedInbox{log: &syncBuffer{}}
	done := make(chan int, 1)
	args = append([]string{"webhooks", "serve", "--db", dbURL, "--addr", "127.0.0.1:0"}, args...)
	environ := env{"EDAPP_WEBHOOK_SECRET": hookHeader + "=" + hookSecret}
	go func() { done <- run(ctx, args, strings.NewReader(""), io.Discard, in.log, environ.get) }()
	deadline := time.Now().Add(time.Minute)
	for in.url == "" {
		if m := listeningRE.FindStringSubmatch(in.log.String()); m != nil {
			in.url = "http://" + m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited with %d:\n%s", code, in.log.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", in.log.String())
		}
	}
	stopped := false
	in.stop = func() int {
		if stopped {
			return exitOK
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() {
		in.stop()
		if strings.Contains(in.log.String(), hookSecret) {
			t.Errorf("the secret is in the log:\n%s", in.log.String())
		}
	})
	return in
}

// post sends body to the inbox with the secret header value given ("" for
// none) and returns the answer's status and Retry-After.
func (in *servedInbox) post(t *testing.T, method string, body []byte, secret string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, in.url+"/", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if secret != "" {
		req.Header.Set(hookHeader, secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

func (in *servedInbox) health(t *testing.T) int {
	t.Helper()
	resp, err := http.Get(in.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func countEvents(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM events`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// lessonDelivery is a delivery of a distinct LessonCompletedEvent for i.
func lessonDelivery(i int) (body []byte, key string) {
	ev := &edapp.LessonCompletedEvent{
		UserID: fmt.Sprintf("user-%04d", i), LessonID: "lesson-1", CourseID: "course-1", Score: float64(i % 100),
		Timestamp: edapp.Time{Time: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Millisecond)},
	}
	body = webhook.NewTestDelivery(ev)
	parsed, _ := edapp.ParseEvent(body)
	return body, edapp.EventKey(parsed)
}

// TestServeAnswers: each answer code, with what it stores and logs.
func TestServeAnswers(t *testing.T) {
	t.Parallel()
	bothDBs(t, testServeAnswers)
}

func testServeAnswers(t *testing.T, url string) {
	in := startInbox(t, url)
	body, key := lessonDelivery(1)
	for _, c := range []struct {
		name, method, secret string
		body                 []byte
		want                 int
	}{
		{"stored", http.MethodPost, hookSecret, body, 200},
		{"redelivery", http.MethodPost, hookSecret, body, 200},
		{"unknown event", http.MethodPost, hookSecret, []byte(`{"eventName":"CertificateIssuedEvent","userId":"u1"}`), 200},
		{"odd value kept in raw", http.MethodPost, hookSecret, []byte(`{"eventName":"CourseCompletedEvent","userId":"u2","courseId":7,"timestamp":"2026-11-24 10:00:00"}`), 200},
		{"wrong secret", http.MethodPost, "guess", body, 401},
		{"no secret", http.MethodPost, "", body, 401},
		{"GET", http.MethodGet, hookSecret, nil, 405},
		{"too large", http.MethodPost, hookSecret, append([]byte(`{"eventName":"X","pad":"`), bytes.Repeat([]byte("a"), 1<<20)...), 413},
		{"malformed", http.MethodPost, hookSecret, []byte(`{"eventName":`), 400},
	} {
		if got, _ := in.post(t, c.method, c.body, c.secret); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
	db, dialect := openTestDB(t, url)
	if n := countEvents(t, db); n != 3 {
		t.Errorf("%d rows, want 3", n)
	}
	var name, userID, raw string
	var score float64
	q := rebind(dialect, `SELECT event_name, user_id, score, raw FROM events WHERE event_key = ?`)
	if err := db.QueryRow(q, key).Scan(&name, &userID, &score, &raw); err != nil {
		t.Fatal(err)
	}
	if name != "LessonCompletedEvent" || userID != "user-0001" || score != 1 || !sameJSON(raw, string(body)) {
		t.Errorf("row %s %s %v %s", name, userID, score, raw)
	}
	log := in.log.String()
	for _, want := range []string{"result=stored", "result=duplicate", "status=401", `reason="secret header wrong"`, "status=405", "status=413", "status=400", "key=" + key} {
		if !strings.Contains(log, want) {
			t.Errorf("log has no %s:\n%s", want, log)
		}
	}
}

// sameJSON reports whether a and b hold the same JSON value (PostgreSQL's
// jsonb keeps the value, not the text).
func sameJSON(a, b string) bool {
	var va, vb any
	return json.Unmarshal([]byte(a), &va) == nil && json.Unmarshal([]byte(b), &vb) == nil && reflect.DeepEqual(va, vb)
}

// TestServeSlowBodiesHoldNoPlace: senders that hold connections open with
// slow bodies, more of them than --max-in-flight, keep no real delivery
// out: each gets 200 while they hang. (The handler's tests show the 503
// beyond the bound, and that the slow bodies were waiting.)
func TestServeSlowBodiesHoldNoPlace(t *testing.T) {
	t.Parallel()
	in := startInbox(t, dbtest.SQLite(t), "--max-in-flight", "1")
	body, _ := lessonDelivery(1)
	for range 3 {
		// Its headers and the start of its body arrive, the rest never.
		conn, err := net.Dial("tcp", strings.TrimPrefix(in.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: inbox\r\n%s: %s\r\nContent-Length: %d\r\n\r\n%s", hookHeader, hookSecret, len(body), body[:10])
	}
	for i := range 20 {
		body, _ := lessonDelivery(i + 2)
		if status, _ := in.post(t, http.MethodPost, body, hookSecret); status != http.StatusOK {
			t.Fatalf("delivery %d among slow bodies: status %d", i, status)
		}
	}
}

// waitStatus posts body until it gets want, for up to 30 s.
func waitStatus(t *testing.T, in *servedInbox, body []byte, want int) (int, string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, retry := in.post(t, http.MethodPost, body, hookSecret)
		if status == want || time.Now().After(deadline) {
			return status, retry
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeRedeliveryFromTheFake: the fake delivers an event to serve, and
// the same delivery comes again; one row.
func TestServeRedeliveryFromTheFake(t *testing.T) {
	t.Parallel()
	url := dbtest.SQLite(t)
	in := startInbox(t, url, "--log-format", "json")
	fake := edapptest.New(t)
	if _, err := fake.AddWebhook(edapptest.WebhookSpec{EventName: edapp.EventLessonCompleted, URL: in.url + "/", Headers: map[string]string{hookHeader: hookSecret}}); err != nil {
		t.Fatal(err)
	}
	if err := fake.Emit(edapp.EventLessonCompleted, map[string]any{"userId": "u1", "lessonId": "l1", "score": 75}); err != nil {
		t.Fatal(err)
	}
	ds := fake.Deliveries()
	if len(ds) != 1 || ds[0].StatusCode != 200 {
		t.Fatalf("deliveries %+v", ds)
	}
	again, err := fake.Redeliver(ds[0].ID)
	if err != nil || again.StatusCode != 200 || again.RedeliveryOf != ds[0].ID {
		t.Fatalf("redelivery: %+v, %v", again, err)
	}
	db, _ := openTestDB(t, url)
	if n := countEvents(t, db); n != 1 {
		t.Errorf("%d rows after a redelivery, want 1", n)
	}
	var results []string
	for _, line := range strings.Split(strings.TrimSpace(in.log.String()), "\n") {
		var rec struct{ Msg, Result, Key, Event string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("--log-format json wrote %q: %v", line, err)
		}
		if rec.Msg == "edapp webhook: delivery" && rec.Key != "" && rec.Event == "LessonCompletedEvent" {
			results = append(results, rec.Result)
		}
	}
	if !slices.Equal(results, []string{"stored", "duplicate"}) {
		t.Errorf("logged results %v", results)
	}
}

// TestServeUsage: through the whole command, a bad flag (see
// TestNewCmdWebhooksServeFlags for each) or database URL exits with the
// usage code, quotes no secret and creates no database.
func TestServeUsage(t *testing.T) {
	t.Chdir(t.TempDir()) // a usage error creates no file; if one did, not here
	for _, args := range [][]string{
		{"webhooks", "serve", "--db", "sqlite:x.db", "--secret-header", "X Hook=" + hookSecret},
		{"webhooks", "serve", "--db", "mysql://h/db", "--insecure-no-secret"},
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), io.Discard, &stderr, env{}.get)
		if code != exitUsage || strings.Contains(stderr.String(), hookSecret) {
			t.Errorf("%v: exit %d, %s", args, code, stderr.String())
		}
		if _, err := os.Stat("x.db"); err == nil {
			t.Fatalf("%v: a usage error created the database", args)
		}
	}
}

// TestServeREADMEQuery runs the inbox page's query over an export and the
// events serve received from the fake, on both databases.
func TestServeREADMEQuery(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../docs/webhooks-inbox.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sql\n(SELECT [^`]*FROM events e[^`]*)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("docs/webhooks-inbox.md has no query of events")
	}
	query := string(m[1])
	bothDBs(t, func(t *testing.T, url string) {
		srv := edapptest.New(t)
		t.Cleanup(srv.Close)
		demo, err := fakedata.SeedDemo(srv)
		if err != nil {
			t.Fatal(err)
		}
		if r := runFake(t, srv, "export", "--db", url); r.code != exitOK {
			t.Fatalf("export: %d %s", r.code, r.stderr)
		}
		in := startInbox(t, url)
		if _, err := srv.AddWebhook(edapptest.WebhookSpec{EventName: edapp.EventLessonCompleted, URL: in.url + "/", Headers: map[string]string{hookHeader: hookSecret}}); err != nil {
			t.Fatal(err)
		}
		if err := srv.CompleteLesson(demo.UserIDs[0], demo.LessonIDs[0][0], 88); err != nil {
			t.Fatal(err)
		}
		rows := rowsOf(t, url, query)
		if len(rows) != 1 || !strings.Contains(rows[0][1], "@") || rows[0][2] == "" || rows[0][4] != "88" {
			t.Errorf("rows %q", rows)
		}
	})
}

// The help of webhooks serve keeps it on loopback behind a proxy that
// terminates TLS, and no example binds every interface.
func TestWebhooksServeCommandHelpKeepsLoopback(t *testing.T) {
	t.Parallel()
	r := runEnv(t, env{}, "webhooks", "serve", "--help")
	wantCode(t, r, exitOK)
	for _, want := range []string{"loopback", "terminates TLS", "reverse-proxy", "--addr 127.0.0.1:8080"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "--addr :") || strings.Contains(r.stdout, "--addr 0.0.0.0") {
		t.Errorf("an example binds every interface:\n%s", r.stdout)
	}
}
