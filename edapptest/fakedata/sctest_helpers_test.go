package fakedata_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// answer is one SafetyCulture fake's response, decoded.
type answer struct {
	status int
	body   map[string]any
	raw    []byte
}

// get sends a GET with the fake's token; path may carry a query.
func get(t *testing.T, s *sctest.Server, path string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
	noErr(t, err)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	resp, err := http.DefaultClient.Do(req)
	noErr(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	noErr(t, err)
	a := answer{status: resp.StatusCode, raw: raw}
	if len(raw) > 0 && raw[0] == '{' {
		noErr(t, json.Unmarshal(raw, &a.body))
	}
	return a
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

// drain walks a feed or list: the first path, then each next_page as
// given.
func drain(t *testing.T, s *sctest.Server, path string) (rows []map[string]any, pages int) {
	t.Helper()
	for path != "" && pages < 1000 {
		a := get(t, s, path)
		if a.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, a.status, a.raw)
		}
		rows = append(rows, a.items()...)
		pages++
		meta, _ := a.body["metadata"].(map[string]any)
		path, _ = meta["next_page"].(string)
	}
	return rows, pages
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func must[T any](t *testing.T) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		noErr(t, err)
		return v
	}
}
