package webhook_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/webhook"
)

// newHandler is webhook.NewHandler for options that must be good.
func newHandler(t testing.TB, fn func(context.Context, edapp.Event) error, opts ...webhook.Option) *webhook.Handler {
	t.Helper()
	h, err := webhook.NewHandler(fn, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func readEventFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// eventFixtures lists the delivery bodies in the SDK's test data.
func eventFixtures(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("..", "testdata", "events"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

const (
	testSecretHeader = "X-Webhook-Secret"
	testSecret       = "s3cr3t-value-never-logged"
)

// eventRecorder is an event function that remembers its calls.
type eventRecorder struct {
	calls []edapp.Event
	ctxs  []context.Context
	err   error
}

func (r *eventRecorder) fn(ctx context.Context, ev edapp.Event) error {
	r.calls = append(r.calls, ev)
	r.ctxs = append(r.ctxs, ctx)
	return r.err
}

// failingBody fails every read.
type failingBody struct{}

func (failingBody) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestHandler(t *testing.T) {
	t.Parallel()
	valid := readEventFixture(t, "LessonCompletedEvent.json")
	type ctxKey struct{}
	tests := []struct {
		name       string
		opts       []webhook.Option
		fnErr      error
		method     string
		body       io.Reader
		length     int64 // Content-Length; -1 unknown; 0 from body
		header     map[string][]string
		wantStatus int
		wantCalled bool
	}{
		{name: "delivery accepted", method: http.MethodPost, body: bytes.NewReader(valid), wantStatus: 200, wantCalled: true},
		{name: "GET", method: http.MethodGet, wantStatus: 405},
		{name: "PUT with a valid body", method: http.MethodPut, body: bytes.NewReader(valid), wantStatus: 405},
		{name: "HEAD", method: http.MethodHead, wantStatus: 405},
		{name: "DELETE", method: http.MethodDelete, wantStatus: 405},
		{name: "malformed JSON", method: http.MethodPost, body: strings.NewReader(`{"eventName":`), wantStatus: 400},
		{name: "not an object", method: http.MethodPost, body: strings.NewReader(`["LessonCompletedEvent"]`), wantStatus: 400},
		{name: "empty body", method: http.MethodPost, body: strings.NewReader(``), wantStatus: 400},
		{name: "no eventName", method: http.MethodPost, body: strings.NewReader(`{"userId":"u1"}`), wantStatus: 400},
		{name: "invalid field", method: http.MethodPost, body: strings.NewReader(`{"eventName":"LessonCompletedEvent","score":"lots"}`), wantStatus: 400},
		{name: "unreadable body", method: http.MethodPost, body: failingBody{}, length: -1, wantStatus: 400},
		{name: "unknown event reaches fn", method: http.MethodPost, body: strings.NewReader(`{"eventName":"NewEvent"}`), wantStatus: 200, wantCalled: true},
		{
			name: "body over the default 1 MiB", method: http.MethodPost,
			body: strings.NewReader(`{"eventName":"LessonCompletedEvent","pad":"` + strings.Repeat("a", 1<<20) + `"}`), wantStatus: 413,
		},
		{
			name: "body over the limit, length unknown", method: http.MethodPost, opts: []webhook.Option{webhook.WithMaxBodyBytes(100)},
			body: bytes.NewReader(valid), length: -1, wantStatus: 413,
		},
		{
			name: "body over the limit, length declared", method: http.MethodPost, opts: []webhook.Option{webhook.WithMaxBodyBytes(100)},
			body: bytes.NewReader(valid), wantStatus: 413,
		},
		{
			name: "body at the limit", method: http.MethodPost, opts: []webhook.Option{webhook.WithMaxBodyBytes(int64(len(valid)))},
			body: bytes.NewReader(valid), length: -1, wantStatus: 200, wantCalled: true,
		},
		{
			name: "secret missing", method: http.MethodPost, opts: []webhook.Option{webhook.WithSecretHeader(testSecretHeader, testSecret)},
			body: bytes.NewReader(valid), wantStatus: 401,
		},
		{
			name: "secret wrong", method: http.MethodPost, opts: []webhook.Option{webhook.WithSecretHeader(testSecretHeader, testSecret)},
			body: bytes.NewReader(valid), header: map[string][]string{testSecretHeader: {"s3cr3t-value-never-logge"}}, wantStatus: 401,
		},
		{
			name: "secret empty", method: http.MethodPost, opts: []webhook.Option{webhook.WithSecretHeader(testSecretHeader, testSecret)},
			body: bytes.NewReader(valid), header: map[string][]string{testSecretHeader: {""}}, wantStatus: 401,
		},
		{
			name: "secret under another header", method: http.MethodPost, opts: []webhook.Option{webhook.WithSecretHeader(testSecretHeader, testSecret)},
			body: bytes.NewReader(valid), header: map[string][]string{"Authorization": {testSecret}}, wantStatus: 401,
		},
		{
			name: "secret right", method: http.MethodPost, opts: []webhook.Option{webhook.WithSecretHeader("x-webhook-secret", testSecret)},
			body: bytes.NewReader(valid), header: map[string][]string{testSecretHeader: {testSecret}}, wantStatus: 200, wantCalled: true,
		},
		{
			name: "secret checked before the body", method: http.MethodPost, opts: []webhook.Option{webhook.WithSecretHeader(testSecretHeader, testSecret)},
			body: strings.NewReader("not json"), wantStatus: 401,
		},
		{
			name: "method checked before the secret", method: http.MethodGet, opts: []webhook.Option{webhook.WithSecretHeader(testSecretHeader, testSecret)},
			wantStatus: 405,
		},
		{name: "fn error gives 500", method: http.MethodPost, fnErr: errors.New("database down"), body: bytes.NewReader(valid), wantStatus: 500, wantCalled: true},
		{name: "fn ErrRejected gives 422", method: http.MethodPost, fnErr: fmt.Errorf("refused: %w", webhook.ErrRejected), body: bytes.NewReader(valid), wantStatus: 422, wantCalled: true},
		{name: "nil option is ignored", method: http.MethodPost, opts: []webhook.Option{nil}, body: bytes.NewReader(valid), wantStatus: 200, wantCalled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &eventRecorder{err: tt.fnErr}
			var logs bytes.Buffer
			opts := append(tt.opts, webhook.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
			h := newHandler(t, rec.fn, opts...)

			req := httptest.NewRequest(tt.method, "/edapp/events", tt.body)
			switch {
			case tt.length < 0:
				req.ContentLength = -1
				req.Body = io.NopCloser(tt.body)
			case tt.length > 0:
				req.ContentLength = tt.length
			}
			for k, vs := range tt.header {
				req.Header[k] = vs
			}
			req = req.WithContext(context.WithValue(req.Context(), ctxKey{}, "request context"))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)

			if w.Code != tt.wantStatus {
				t.Errorf("status %d, want %d (body %q)", w.Code, tt.wantStatus, w.Body.String())
			}
			if called := len(rec.calls) > 0; called != tt.wantCalled {
				t.Errorf("fn called %d times, want called: %v", len(rec.calls), tt.wantCalled)
			}
			if len(rec.calls) > 1 {
				t.Errorf("fn called %d times", len(rec.calls))
			}
			if tt.wantStatus == 405 && w.Header().Get("Allow") != http.MethodPost {
				t.Errorf("Allow = %q", w.Header().Get("Allow"))
			}
			for _, ctx := range rec.ctxs {
				if ctx.Value(ctxKey{}) != "request context" {
					t.Error("fn did not get the request's context")
				}
			}
			if strings.Contains(w.Body.String(), testSecret) || strings.Contains(logs.String(), testSecret) {
				t.Errorf("secret leaked:\nresponse %q\nlogs %s", w.Body.String(), logs.String())
			}
			if tt.wantStatus != 200 && logs.Len() == 0 {
				t.Error("nothing logged for a failed delivery")
			}
		})
	}
}

func TestHandlerPassesTheTypedEvent(t *testing.T) {
	t.Parallel()
	for _, file := range eventFixtures(t) {
		want, err := edapp.ParseEvent(readEventFixture(t, file))
		if err != nil {
			t.Fatal(err)
		}
		rec := &eventRecorder{}
		h := newHandler(t, rec.fn)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(readEventFixture(t, file))))
		if w.Code != http.StatusOK || len(rec.calls) != 1 {
			t.Fatalf("%s: status %d, %d calls", file, w.Code, len(rec.calls))
		}
		if !reflect.DeepEqual(rec.calls[0], want) {
			t.Errorf("%s: fn got %#v, ParseEvent gives %#v", file, rec.calls[0], want)
		}
	}
}

func TestHandlerNilBody(t *testing.T) {
	t.Parallel()
	rec := &eventRecorder{}
	h := newHandler(t, rec.fn)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, &http.Request{Method: http.MethodPost, Header: http.Header{}})
	if w.Code != http.StatusBadRequest || len(rec.calls) != 0 {
		t.Fatalf("status %d, %d calls", w.Code, len(rec.calls))
	}
}

// TestHandlerOverHTTP runs the handler behind a real (loopback)
// server, where MaxBytesReader also closes the connection.
func TestHandlerOverHTTP(t *testing.T) {
	t.Parallel()
	rec := &eventRecorder{}
	srv := httptest.NewServer(newHandler(t, rec.fn,
		webhook.WithSecretHeader(testSecretHeader, testSecret), webhook.WithMaxBodyBytes(1024)))
	defer srv.Close()
	post := func(body io.Reader) int {
		req, err := http.NewRequest(http.MethodPost, srv.URL, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(testSecretHeader, testSecret)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(bytes.NewReader(readEventFixture(t, "CourseReminderWebHookEvent.json"))); got != 200 {
		t.Errorf("status %d", got)
	}
	// A reader without a length is sent chunked.
	if got := post(io.MultiReader(strings.NewReader(`{"eventName":"X","pad":"`), strings.NewReader(strings.Repeat("a", 4096)+`"}`))); got != 413 {
		t.Errorf("status %d, want 413", got)
	}
	if len(rec.calls) != 1 {
		t.Errorf("%d calls, want 1", len(rec.calls))
	}
}

func BenchmarkHandler(b *testing.B) {
	payload := readEventFixture(b, "LessonCompletedEvent.json")
	h := newHandler(b, func(context.Context, edapp.Event) error { return nil },
		webhook.WithSecretHeader(testSecretHeader, testSecret))
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(payload))
		req.Header.Set(testSecretHeader, testSecret)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
}

// stallingSender posts payload to addr over a raw loopback connection: it
// sends the headers, then one byte of the body per tick for the first half,
// then stalls until the answer comes. It returns the status line of the
// answer and the body bytes sent by then. Loops are bounded by the payload's
// length; the read deadline only guards against a hang.
func stallingSender(t *testing.T, addr string, payload []byte, header string) (status string, sent int) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Error(err)
		return "", 0
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /edapp/events HTTP/1.1\r\nHost: receiver\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n", len(payload), header)
	var n atomic.Int64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for _, b := range payload[:len(payload)/2] {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if _, err := conn.Write([]byte{b}); err != nil {
				return
			}
			n.Add(1)
		}
	}()
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	line, err := bufio.NewReader(conn).ReadString('\n')
	close(stop)
	<-done
	if err != nil {
		t.Errorf("no answer: %v", err)
	}
	return strings.TrimSpace(line), int(n.Load())
}

// TestHandlerEndsSlowBodies has twenty senders trickle deliveries to
// a real server configured without a ReadTimeout of its own, directly and
// behind a middleware whose ResponseWriter cannot set a read deadline. Each
// sender stalls halfway, so only the handler's own bound can answer it.
func TestHandlerEndsSlowBodies(t *testing.T) {
	t.Parallel()
	payload := readEventFixture(t, "LessonCompletedEvent.json")
	var calls atomic.Int64
	h := newHandler(t, func(context.Context, edapp.Event) error {
		calls.Add(1)
		return nil
	}, webhook.WithSecretHeader(testSecretHeader, testSecret), webhook.WithReadTimeout(150*time.Millisecond))
	for name, handler := range map[string]http.Handler{
		"read deadline": h,
		"timer fallback": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(struct{ http.ResponseWriter }{w}, r) // hides SetReadDeadline and Unwrap
		}),
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewUnstartedServer(handler)
			srv.Config.ReadHeaderTimeout = 10 * time.Second // as in the receiver example, without ReadTimeout
			srv.Start()
			defer srv.Close()
			var wg sync.WaitGroup
			for range 20 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					status, sent := stallingSender(t, srv.Listener.Addr().String(), payload, testSecretHeader+": "+testSecret+"\r\n")
					if !strings.Contains(status, " 408 ") {
						t.Errorf("status %q, want 408", status)
					}
					if sent >= len(payload) {
						t.Errorf("answered after the whole body (%d bytes)", sent)
					}
				}()
			}
			wg.Wait()
			if n := calls.Load(); n != 0 {
				t.Errorf("fn called %d times for slow deliveries", n)
			}
			// The receiver still serves a delivery that comes in time.
			req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(payload))
			req.Header.Set(testSecretHeader, testSecret)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || calls.Load() != 1 {
				t.Errorf("status %d, %d calls", resp.StatusCode, calls.Load())
			}
			calls.Store(0)
		})
	}
}

// TestHandlerReadTimeoutRecorder covers a ResponseWriter without a
// connection (httptest.ResponseRecorder) and a body that never ends.
func TestHandlerReadTimeoutRecorder(t *testing.T) {
	t.Parallel()
	rec := &eventRecorder{}
	h := newHandler(t, rec.fn, webhook.WithReadTimeout(20*time.Millisecond))
	body, sender := io.Pipe()
	defer sender.Close()
	go sender.Write([]byte(`{"eventName":"LessonCompletedEvent",`)) // and then nothing
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", body))
	if w.Code != http.StatusRequestTimeout || len(rec.calls) != 0 {
		t.Fatalf("status %d, %d calls", w.Code, len(rec.calls))
	}
	if w.Header().Get("Connection") != "close" {
		t.Error("connection not closed after a failed read")
	}
}

// deadlineWriter is a ResponseWriter that records the read deadlines set
// through http.ResponseController.
type deadlineWriter struct {
	*httptest.ResponseRecorder
	deadlines []time.Time
}

func (w *deadlineWriter) SetReadDeadline(t time.Time) error {
	w.deadlines = append(w.deadlines, t)
	return nil
}

func TestHandlerReadDeadline(t *testing.T) {
	t.Parallel()
	payload := readEventFixture(t, "CourseCompletedEvent.json")
	for _, tt := range []struct {
		opts []webhook.Option
		want time.Duration
	}{
		{nil, 10 * time.Second},
		{[]webhook.Option{webhook.WithReadTimeout(3 * time.Second)}, 3 * time.Second},
	} {
		h := newHandler(t, func(context.Context, edapp.Event) error { return nil }, tt.opts...)
		w := &deadlineWriter{ResponseRecorder: httptest.NewRecorder()}
		before := time.Now()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(payload)))
		after := time.Now()
		if w.Code != http.StatusOK || len(w.deadlines) != 2 {
			t.Fatalf("status %d, deadlines %v", w.Code, w.deadlines)
		}
		if d := w.deadlines[0]; d.Before(before.Add(tt.want)) || d.After(after.Add(tt.want)) {
			t.Errorf("deadline %v after the request, want %v", d.Sub(before), tt.want)
		}
		if !w.deadlines[1].IsZero() {
			t.Errorf("deadline not lifted after the body: %v", w.deadlines[1])
		}
	}
}

func TestHandlerRecoversPanics(t *testing.T) {
	t.Parallel()
	payload := readEventFixture(t, "LessonCompletedEvent.json")
	const email = "amelia.chen@harbourlogistics.example" // in the payload
	for name, fn := range map[string]func(context.Context, edapp.Event) error{
		"value of fn's own": func(_ context.Context, ev edapp.Event) error {
			panic(fmt.Sprintf("cannot store %+v", ev))
		},
		"runtime error": func(_ context.Context, ev edapp.Event) error {
			var scores []float64
			_ = scores[len(ev.Name())]
			return nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			var logs bytes.Buffer
			h := newHandler(t, fn, webhook.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(payload)))
			if w.Code != http.StatusInternalServerError {
				t.Errorf("status %d, want 500", w.Code)
			}
			if !strings.Contains(logs.String(), "panicked") || !strings.Contains(logs.String(), "stack=") {
				t.Errorf("panic not logged with its stack:\n%s", logs.String())
			}
			if strings.Contains(logs.String(), email) || strings.Contains(w.Body.String(), email) {
				t.Errorf("payload in the log or the answer:\n%s", logs.String())
			}
			if name == "runtime error" && !strings.Contains(logs.String(), "index out of range") {
				t.Errorf("runtime error not named:\n%s", logs.String())
			}
		})
	}
	t.Run("ErrAbortHandler goes on to net/http", func(t *testing.T) {
		h := newHandler(t, func(context.Context, edapp.Event) error { panic(http.ErrAbortHandler) })
		defer func() {
			if p := recover(); p != http.ErrAbortHandler {
				t.Errorf("recovered %v", p)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(payload)))
	})
}
