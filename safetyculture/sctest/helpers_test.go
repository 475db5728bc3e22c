package sctest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// answer is one response, decoded.
type answer struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

// call sends one request with the fake's token; path may carry a query.
func call(t *testing.T, s *sctest.Server, method, path string, body any) answer {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, raw: raw}
	if len(raw) > 0 && raw[0] == '{' {
		if err := json.Unmarshal(raw, &a.body); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
	return a
}

func get(t *testing.T, s *sctest.Server, path string) answer {
	t.Helper()
	return call(t, s, http.MethodGet, path, nil)
}

// items returns a list answer's items, or a feed's data.
func (a answer) items() []map[string]any {
	list, ok := a.body["items"].([]any)
	if !ok {
		list, _ = a.body["data"].([]any)
	}
	out := make([]map[string]any, 0, len(list))
	for _, v := range list {
		out = append(out, v.(map[string]any))
	}
	return out
}

// nextPage returns a feed answer's next_page, "" when null.
func (a answer) nextPage() string {
	meta, _ := a.body["metadata"].(map[string]any)
	next, _ := meta["next_page"].(string)
	return next
}

// drain walks a feed as the vendor exporter does: the first path with
// its parameters, then each next_page exactly as given.
func drain(t *testing.T, s *sctest.Server, path string) (rows []map[string]any, pages int) {
	t.Helper()
	for path != "" && pages < 1000 {
		a := get(t, s, path)
		if a.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, a.status, a.raw)
		}
		rows = append(rows, a.items()...)
		pages++
		path = a.nextPage()
	}
	return rows, pages
}

// clock is a fake clock that tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func must[T any](t *testing.T) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
