package edapp

// The life of a call against a matrix of faults: every call ends, within
// its deadline, with the answer or a typed error, and leaves no goroutine.

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

// faultCase is a row of the fault matrix: one fault, for an idempotent GET
// and for a POST. The client must return the right error or recover, within
// the context deadline, without a leaked goroutine, and without sending a
// POST twice where the server may have acted on it.
type faultCase struct {
	name string
	// handler answers the case's requests; expire ends the call's context
	// as its deadline passing would.
	handler func(hits *atomic.Int32, expire func()) http.HandlerFunc
	// want for GET and for POST: nil means the call must succeed.
	getErr, postErr   func(t *testing.T, err error)
	getHits, postHits int32 // attempts the server must see (0: don't check)
}

func isErr(target error) func(*testing.T, error) {
	return func(t *testing.T, err error) { t.Helper(); assert.ErrorIs(t, err, target) }
}

func isDecodeErr(t *testing.T, err error) {
	t.Helper()
	var d *DecodeError
	assert.ErrorAs(t, err, &d)
}

func anyErr(t *testing.T, err error) { t.Helper(); assert.Error(t, err) }

// resetMidBody promises a long body, sends part of it and drops the
// connection, on the first `times` attempts; later attempts succeed.
func resetMidBody(times int32) func(*atomic.Int32, func()) http.HandlerFunc {
	return func(hits *atomic.Int32, _ func()) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			if hits.Add(1) > times {
				io.WriteString(w, `{"id":"ok"}`)
				return
			}
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{\"id\":\"tru")
			buf.Flush()
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0) // RST, not FIN
			}
			conn.Close()
		}
	}
}

func respond(status int, header map[string]string, body string, times int32) func(*atomic.Int32, func()) http.HandlerFunc {
	return func(hits *atomic.Int32, _ func()) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			if hits.Add(1) > times {
				io.WriteString(w, `{"id":"ok"}`)
				return
			}
			for k, v := range header {
				w.Header().Set(k, v)
			}
			w.WriteHeader(status)
			io.WriteString(w, body)
		}
	}
}

var faultMatrix = []faultCase{
	{
		name:    "connection reset mid-body, once",
		handler: resetMidBody(1),
		getErr:  nil, getHits: 2, // GET reads the body inside the retry loop and retries
		postErr: anyErr, postHits: 1, // the server may have acted: no second POST
	},
	{
		name:    "connection reset mid-body, always",
		handler: resetMidBody(1 << 30),
		getErr:  anyErr, getHits: 4,
		postErr: anyErr, postHits: 1,
	},
	{
		name:    "truncated JSON",
		handler: respond(200, nil, `{"id":"abc","items":[1,2`, 1<<30),
		getErr:  isDecodeErr, getHits: 1,
		postErr: isDecodeErr, postHits: 1,
	},
	{
		name:    "200 with an HTML body",
		handler: respond(200, map[string]string{"Content-Type": "text/html"}, "<html><body>maintenance</body></html>", 1<<30),
		getErr:  isDecodeErr, getHits: 1,
		postErr: isDecodeErr, postHits: 1,
	},
	{
		name: "slow headers beyond the context deadline",
		handler: func(hits *atomic.Int32, expire func()) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				io.Copy(io.Discard, r.Body) // so the server notices the client hang up
				expire()                    // the headers never come before the deadline
				select {
				case <-r.Context().Done():
				case <-time.After(10 * time.Second):
				}
			}
		},
		getErr: isErr(context.DeadlineExceeded), postErr: isErr(context.DeadlineExceeded),
	},
	{
		name:    "429 with Retry-After, then success",
		handler: respond(429, map[string]string{"Retry-After": "1"}, `{"message":"slow down"}`, 1),
		getErr:  nil, getHits: 2,
		postErr: nil, postHits: 2, // a 429 was not acted on: POST may retry
	},
	{
		name:    "429 without Retry-After, then success",
		handler: respond(429, nil, `{"message":"slow down"}`, 2),
		getErr:  nil, getHits: 3,
		postErr: nil, postHits: 3,
	},
	{
		name:    "429 for good",
		handler: respond(429, nil, `{"message":"slow down"}`, 1<<30),
		getErr:  isErr(ErrRateLimited), getHits: 4,
		postErr: isErr(ErrRateLimited), postHits: 4,
	},
	{
		name:    "503 burst, then success",
		handler: respond(503, nil, `{"message":"busy"}`, 3),
		getErr:  nil, getHits: 4,
		postErr: isErr(ErrServer), postHits: 1,
	},
	{
		name: "redirect loop",
		handler: func(hits *atomic.Int32, _ func()) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				hits.Add(1)
				http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
			}
		},
		getErr: anyErr, getHits: 10, // net/http stops after 10 hops; no retry of the loop
		postErr: anyErr, postHits: 10,
	},
}

// TestFaultMatrix runs its cases in parallel with each other, and alone
// otherwise, so that the goroutines counted after them are theirs. Its
// waits (a 429's pause, backoffs) pass on an instant clock, and the
// deadline passes when the server says so, so no case waits in real time.
func TestFaultMatrix(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Run("cases", func(t *testing.T) { runFaultMatrix(t) })
	assertNoGoroutineLeak(t, before)
}

func runFaultMatrix(t *testing.T) {
	for _, fc := range faultMatrix {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			t.Run(fc.name+"/"+method, func(t *testing.T) {
				t.Parallel()
				var hits atomic.Int32
				clock := newInstantClock()
				const deadline = 3 * time.Second
				ctx, expire := newExpiringContext(clock.Now().Add(deadline))
				srv := httptest.NewServer(fc.handler(&hits, expire))
				tr := &http.Transport{}
				c, err := NewClient("t", WithBaseURL(srv.URL), WithRateLimit(rate.Inf, 0),
					WithHTTPClient(&http.Client{Transport: tr}), withTransportClock(clock.Now, clock.NewTimer),
					WithRetry(RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: 20 * time.Millisecond}))
				require.NoError(t, err)

				start := clock.Now()
				var out struct{ ID string }
				var body any
				if method == http.MethodPost {
					body = map[string]string{"name": "x"}
				}
				err = c.Do(ctx, method, "/v2/users", nil, body, &out)
				elapsed := clock.Now().Sub(start)
				expire()

				check, wantHits := fc.getErr, fc.getHits
				if method == http.MethodPost {
					check, wantHits = fc.postErr, fc.postHits
				}
				if check == nil {
					require.NoError(t, err)
					assert.Equal(t, "ok", out.ID)
				} else {
					require.Error(t, err)
					check(t, err)
					assert.NotContains(t, err.Error(), "giving up")
				}
				if wantHits > 0 {
					assert.Equal(t, wantHits, hits.Load(), "attempts")
				}
				assert.Less(t, elapsed, deadline+time.Second, "returned within the context deadline")

				srv.CloseClientConnections()
				srv.Close()
				tr.CloseIdleConnections()
			})
		}
	}
}

// instantClock is a clock whose timers fire at once, moving the time on by
// their duration: every wait passes, in order, without real time passing.
type instantClock struct {
	mu  sync.Mutex
	now time.Time
}

// newInstantClock starts at the real time, so that a deadline set from it
// compares with it as a real one would.
func newInstantClock() *instantClock { return &instantClock{now: time.Now()} }

func (c *instantClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *instantClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(max(d, 0))
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch, func() bool { return false }
}

// expiringContext has a deadline, which passes when expire is called
// rather than in real time.
type expiringContext struct {
	context.Context
	deadline time.Time
	done     chan struct{}
	once     sync.Once
}

func newExpiringContext(deadline time.Time) (context.Context, func()) {
	ctx := &expiringContext{Context: context.Background(), deadline: deadline, done: make(chan struct{})}
	return ctx, func() { ctx.once.Do(func() { close(ctx.done) }) }
}

func (c *expiringContext) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *expiringContext) Done() <-chan struct{}       { return c.done }

func (c *expiringContext) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// assertNoGoroutineLeak waits for the goroutine count to fall back to what
// it was; connection goroutines take a moment to notice a closed socket.
func assertNoGoroutineLeak(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			n := runtime.Stack(buf, true)
			t.Errorf("goroutines: %d before, %d after\n%s", before, runtime.NumGoroutine(), firstLines(string(buf[:n]), 60))
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func firstLines(s string, n int) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	var b strings.Builder
	for i := 0; i < n && sc.Scan(); i++ {
		b.WriteString(sc.Text())
		b.WriteByte('\n')
	}
	return b.String()
}
