package edapp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/edapp-go/edapp/internal/core"
	"github.com/edapp-go/edapp/internal/lenient"
)

// setupPrefix is the path prefix of the base URL that setup gives its
// client: every request must keep it.
const setupPrefix = "/api-prefix"

// setupToken is the API token of setup's client.
const setupToken = "test-token"

// setup starts a loopback test server and returns a client pointed at it
// and the mux that answers the requests, go-github style. Register handlers
// on the mux with the paths the client sends, without the prefix (the
// server checks and strips it, and checks the token); a path the mux does
// not know answers 404. The client neither retries nor rate limits.
func setup(t *testing.T) (*Client, *http.ServeMux) {
	t.Helper()
	mux := http.NewServeMux()
	outer := http.NewServeMux()
	outer.Handle(setupPrefix+"/", http.StripPrefix(setupPrefix, mux))
	outer.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the base URL's prefix: %s %s", r.Method, r.URL.EscapedPath())
		http.Error(w, "outside the prefix", http.StatusBadRequest)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer "+setupToken {
			t.Errorf("Authorization = %q, want the bearer token", got)
		}
		outer.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	client, err := NewClient(setupToken,
		WithBaseURL(srv.URL+setupPrefix),
		WithRateLimit(rate.Inf, 0),
		WithRetry(RetryPolicy{MaxRetries: 0}))
	require.NoError(t, err)
	return client, mux
}

// loadFixture returns testdata/<name>.
func loadFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(name)))
	require.NoError(t, err)
	return b
}

// serveFixture answers with the fixture testdata/<name> and status 200.
func serveFixture(t *testing.T, w http.ResponseWriter, name string) {
	t.Helper()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(loadFixture(t, name))
}

// assertRequest checks a request's method, escaped path (without the
// prefix), raw query string and body, byte for byte. An empty body means
// none was sent.
func assertRequest(t *testing.T, r *http.Request, method, path, rawQuery, body string) {
	t.Helper()
	assert.Equal(t, method, r.Method, "method")
	assert.Equal(t, path, r.URL.EscapedPath(), "path")
	assert.Equal(t, rawQuery, r.URL.RawQuery, "query")
	b, err := io.ReadAll(r.Body)
	assert.NoError(t, err)
	assert.Equal(t, body, string(b), "body")
	if body != "" {
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	}
}

// refuseRequests makes every request to the mux fail the test: for calls
// that must be refused before anything is sent.
func refuseRequests(t *testing.T, mux *http.ServeMux) {
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL.EscapedPath())
		http.Error(w, "unexpected", http.StatusTeapot)
	})
}

// pagedEnd says how pagedHandler's answers let an iterator know it is done.
type pagedEnd int

const (
	endTotal pagedEnd = iota // envelope with totalCount
	endShort                 // bare array; the last page is short
	endEmpty                 // envelope without totalCount; an empty page ends
)

func (e pagedEnd) String() string {
	return [...]string{"totalCount", "short page", "empty page"}[e]
}

// pagedRecorder answers a list operation from items, page by page, and
// records the queries it was asked.
type pagedRecorder struct {
	mu      sync.Mutex
	queries []string
}

// asked returns the queries sorted: counted pages are fetched in parallel,
// so they arrive in any order.
func (p *pagedRecorder) asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(slices.Values(p.queries))
}

// pagedHandler serves items (JSON objects) honouring page and pageSize, and
// ends as end says. It fails the test past the last page it should be
// asked for.
func pagedHandler(t *testing.T, rec *pagedRecorder, items []string, end pagedEnd) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.queries = append(rec.queries, r.URL.RawQuery)
		rec.mu.Unlock()
		if r.Method != http.MethodGet {
			t.Errorf("method %s, want GET", r.Method)
		}
		q := r.URL.Query()
		page, err1 := strconv.Atoi(q.Get("page"))
		size, err2 := strconv.Atoi(q.Get("pageSize"))
		if err1 != nil || err2 != nil || page < 1 || size < 1 {
			t.Errorf("bad paging query %q", r.URL.RawQuery)
			http.Error(w, "bad paging", http.StatusBadRequest)
			return
		}
		lo := min((page-1)*size, len(items))
		hi := min(lo+size, len(items))
		if lo == len(items) && end != endEmpty {
			t.Errorf("asked for page %d past the end (%d items, page size %d, %s)", page, len(items), size, end)
		}
		arr := "[" + strings.Join(items[lo:hi], ",") + "]"
		w.Header().Set("Content-Type", "application/json")
		switch end {
		case endTotal:
			fmt.Fprintf(w, `{"totalCount": %d, "items": %s}`, len(items), arr)
		case endShort:
			fmt.Fprint(w, arr)
		case endEmpty:
			fmt.Fprintf(w, `{"items": %s}`, arr)
		}
	}
}

// pagedItems returns n JSON objects whose id-like fields (id, userId,
// courseId, lessonId) all hold "r<i>".
func pagedItems(n int) []string {
	out := make([]string, n)
	for i := range out {
		id := fmt.Sprintf("r%d", i+1)
		out[i] = fmt.Sprintf(`{"id":%[1]q,"userId":%[1]q,"courseId":%[1]q,"lessonId":%[1]q,"name":"n"}`, id)
	}
	return out
}

// collectKeys ranges over seq and returns key(item) for each item, stopping
// at the first error.
func collectKeys[T any](seq func(yield func(T, error) bool), key func(T) string) ([]string, error) {
	var keys []string
	for v, err := range seq {
		if err != nil {
			return keys, err
		}
		keys = append(keys, key(v))
	}
	return keys, nil
}

// checkAllPages runs an All iterator against pagedHandler, mounted at path,
// for each way a list can end, over several pages of 2 items. run must set
// PageSize 2 and the filters whose query is filterQuery (url-encoded, any
// order); every request must carry them. Items must arrive once each, in
// order, and the iterator must stop without asking past the end.
func checkAllPages(t *testing.T, path, filterQuery string, run func(ctx context.Context, c *Client) ([]string, error)) {
	t.Helper()
	for _, end := range []pagedEnd{endTotal, endShort, endEmpty} {
		t.Run(end.String(), func(t *testing.T) {
			n, wantPages := 5, 3
			if end == endEmpty {
				n = 4 // full pages, then an empty one
			}
			client, mux := setup(t)
			rec := &pagedRecorder{}
			mux.HandleFunc(path, pagedHandler(t, rec, pagedItems(n), end))

			keys, err := run(context.Background(), client)
			require.NoError(t, err)
			var want []string
			for i := range n {
				want = append(want, fmt.Sprintf("r%d", i+1))
			}
			assert.Equal(t, want, keys)

			filters, err := url.ParseQuery(filterQuery)
			require.NoError(t, err)
			var wantQueries []string
			for page := 1; page <= wantPages; page++ {
				q := url.Values{}
				for k, v := range filters {
					q[k] = v
				}
				q.Set("page", strconv.Itoa(page))
				q.Set("pageSize", "2")
				wantQueries = append(wantQueries, q.Encode())
			}
			assert.Equal(t, wantQueries, rec.asked())
		})
	}
}

// checkRefused checks that err is ErrInvalidInput; setup's mux must have
// been given refuseRequests so a request fails the test.
func checkRefused(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrInvalidInput)
}

// firstErr returns the first error an iterator yields and how many items
// came before it.
func firstErr[T any](seq func(yield func(T, error) bool)) (int, error) {
	n := 0
	for _, err := range seq {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// totalOf is a page's or a response's count, or -1 when there is none.
func totalOf(v interface{ Total() (int, bool) }) int {
	n, ok := v.Total()
	if !ok {
		return -1
	}
	return n
}

// counted is the count a test expects of a page; -1: none.
// It is carried by a Response, for a wanted Page's.
func counted(n int) *Response {
	r := new(Response)
	core.SetCount(r, core.ListCount{Raw: n, Sent: n != -1})
	return r
}

const benchUserJSON = `{"id":"u-1001","name":"ann.lee","email":"ann.lee@example.com","firstName":"Ann","lastName":"Lee",` +
	`"externalId":"hr-1001","timeZone":"Australia/Sydney","roles":["app-user","prizing-user"],` +
	`"userGroups":["g-1","g-2"],"userGroupsManaged":["g-2"],"customFields":{"site":"Sydney","team":"Ops"},` +
	`"lastActiveDate":"2024-05-01T09:30:00.123Z"}`

// benchClient is an SDK client with the limiter off, so the benchmark
// measures the SDK, not the service's rate limit.
func benchClient(b *testing.B, url string, opts ...Option) *Client {
	b.Helper()
	c, err := NewClient("bench-token", append([]Option{WithBaseURL(url), WithRateLimit(rate.Inf, 0)}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// baselineGet is what a careful hand-written client does: build the
// request, set the headers, send it, check the status, decode the body.
func baselineGet(ctx context.Context, hc *http.Client, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer bench-token")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func staticServer(body []byte) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
}

// baselineTransport has the pool settings the SDK's own transport has.
func baselineTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 32
	return t
}

// interleaved runs sdk and baseline alternately and reports the ratio of
// the process CPU time each used.
func interleaved(sdk, baseline func(*testing.B)) func(*testing.B) {
	return func(b *testing.B) {
		var s, base time.Duration
		for b.Loop() {
			t0 := processCPU()
			sdk(b)
			t1 := processCPU()
			baseline(b)
			s, base = s+t1-t0, base+processCPU()-t1
		}
		b.ReportMetric(float64(s)/float64(base), "sdk/baseline-cpu")
	}
}

// decodeAnswer decodes one answer the way Client.Do does.
func decodeAnswer(data []byte, v any) error {
	_, err := lenient.Decode(data, v)
	return err
}

// badDatesPage is a page of n attempts, each with a completion datetime in
// a form no decoder knows.
func badDatesPage(n int, envelope bool) []byte {
	page := attemptsPage(n, n)
	page = bytes.ReplaceAll(page, []byte(`"completedDateTime":"2024-05-01T09:`), []byte(`"completedDateTime":"the 1st of May, 9:`))
	if !envelope {
		page = page[bytes.IndexByte(page, '[') : len(page)-1]
	}
	return page
}

const coreToken = "secret-token-9f2c"

// fastRetry retries quickly, so retry tests take milliseconds.
var fastRetry = RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: 5 * time.Millisecond}

// coreServer serves h under a path prefix and returns a client for it, so a
// request that drops the prefix fails loudly with a 404.
func coreServer(t *testing.T, h http.HandlerFunc, opts ...Option) *Client {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/prefix/", http.StripPrefix("/prefix", h))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the base URL's path prefix: %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	all := append([]Option{WithBaseURL(srv.URL + "/prefix/"), WithRateLimit(rate.Inf, 0), WithRetry(fastRetry)}, opts...)
	c, err := NewClient(coreToken, all...)
	require.NoError(t, err)
	return c
}

// statusSeq answers the given statuses in turn, then 200 {"ok":true}.
func statusSeq(hits *atomic.Int32, statuses ...int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n := int(hits.Add(1)) - 1
		io.Copy(io.Discard, r.Body)
		if n < len(statuses) {
			w.WriteHeader(statuses[n])
			io.WriteString(w, `{"message":"try again"}`)
			return
		}
		io.WriteString(w, `{"ok":true}`)
	}
}

// mockClient routes the client's own transport through httpmock: the
// retrying client builds its own http.Client, so the default transport
// would not see these requests.
func mockClient(t *testing.T, opts ...Option) (*Client, *httpmock.MockTransport) {
	t.Helper()
	mock := httpmock.NewMockTransport()
	mock.RegisterNoResponder(httpmock.NewNotFoundResponder(t.Error)) // a request nobody expected fails the test
	all := append([]Option{
		WithBaseURL("https://rest.example.test"),
		WithHTTPClient(&http.Client{Transport: mock}),
		WithRateLimit(rate.Inf, 0),
		WithRetry(fastRetry),
	}, opts...)
	c, err := NewClient(coreToken, all...)
	require.NoError(t, err)
	return c, mock
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}

// endlessBody never ends, and counts what was read of it.
type endlessBody struct {
	mu   sync.Mutex
	read int
}

func (b *endlessBody) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	b.mu.Lock()
	b.read += len(p)
	b.mu.Unlock()
	return len(p), nil
}

func (b *endlessBody) Close() error { return nil }

// lockedBuffer is a log's output that the client's goroutines and the test
// may use at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
