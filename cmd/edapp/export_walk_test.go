package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/export/dbtest"
)

// newestFirst overrides the fake's GET /v2/users: it answers the fake's
// users newest first, as the service may, with count(n) as totalCount for
// a list of n. With insert set, the answer to page 2 waits until page 3
// has been answered, then adds 7 users to the fake, at the front of the
// list: the users page 2 pushes past page 3's start are on neither page
// as first read, unless the walk reads again.
type newestFirst struct {
	srv    *edapptest.Server
	count  func(n int) int
	insert bool

	mu     sync.Mutex
	users  []json.RawMessage // newest first
	page3  chan struct{}
	once   sync.Once
	insOne sync.Once
	late   atomic.Bool // page 3 did not come before page 2
}

func serveNewestFirst(t *testing.T, srv *edapptest.Server, count func(int) int, insert bool) *newestFirst {
	t.Helper()
	h := &newestFirst{srv: srv, count: count, insert: insert, page3: make(chan struct{})}
	h.users = h.fakeUsers(t, "/v2/users?pageSize=1000")
	slices.Reverse(h.users)
	if err := srv.Handle("GET /v2/users", h); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Handle("GET /v2/users", nil) })
	return h
}

// fakeUsers reads users from the fake itself, as JSON: one user by id, or
// a page of the list (before the override).
func (h *newestFirst) fakeUsers(t *testing.T, path string) []json.RawMessage {
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+h.srv.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer resp.Body.Close()
	var page struct{ Items []json.RawMessage }
	var one json.RawMessage
	if path == "/v2/users?pageSize=1000" {
		err = json.NewDecoder(resp.Body).Decode(&page)
	} else {
		err = json.NewDecoder(resp.Body).Decode(&one)
		page.Items = []json.RawMessage{one}
	}
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %d %v", path, resp.StatusCode, err)
	}
	return page.Items
}

func (h *newestFirst) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	size, _ := strconv.Atoi(r.URL.Query().Get("pageSize"))
	page, size = max(page, 1), max(size, 1)
	if h.insert && page == 2 {
		h.insOne.Do(func() {
			select {
			case <-h.page3:
			case <-time.After(10 * time.Second):
				h.late.Store(true)
			}
			h.insertUsers(7)
		})
	}
	h.mu.Lock()
	from := min((page-1)*size, len(h.users))
	items := h.users[from:min(from+size, len(h.users))]
	b, _ := json.Marshal(map[string]any{"totalCount": h.count(len(h.users)), "items": items})
	h.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
	if page == 3 {
		h.once.Do(func() { close(h.page3) })
	}
}

// insertUsers adds n users to the fake and to the front of the list.
func (h *newestFirst) insertUsers(n int) {
	for i := range n {
		id, err := h.srv.AddUser(edapptest.UserSpec{Username: fmt.Sprintf("inserted%02d", i)})
		if err != nil {
			panic(err) // the fake then answers 500 and the test fails
		}
		u := h.fakeUsers(&testing.T{}, "/v2/users/"+id)
		h.mu.Lock()
		h.users = append(u, h.users...)
		h.mu.Unlock()
	}
}

// fakeUserIDs lists the ids of the fake's users, sorted.
func fakeUserIDs(t *testing.T, srv *edapptest.Server) []string {
	t.Helper()
	var ids []string
	for u, err := range srv.Client().Users.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, u.ID)
	}
	slices.Sort(ids)
	return ids
}

// exportedUserIDs exports the users into files and a database, and
// returns the ids each holds, sorted.
func exportedUserIDs(t *testing.T, srv *edapptest.Server) (files, db []string) {
	t.Helper()
	dir, url := t.TempDir(), dbtest.SQLite(t)
	r := runExport(t, context.Background(), srv, func(f *factory) { withPageSize(f, 10) }, "--kinds", "users", "--concurrency", "4", "--out", dir, "--db", url)
	wantCode(t, r, exitOK)
	files = column(readKind(t, dir, "users"), "id")
	slices.Sort(files)
	conn, _ := openTestDB(t, url)
	rows, err := conn.Query(`SELECT id FROM users`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		db = append(db, id)
	}
	slices.Sort(db)
	return files, db
}

// TestExportUsersInsertedAtTheFront: the service lists users newest
// first, and users are inserted at the front while the export reads
// pages in parallel, page 3 answered before page 2: every user that
// existed for the whole walk is exported once, to files and to a
// database, and nothing the fake does not hold; the next export holds
// the fake's users exactly.
func TestExportUsersInsertedAtTheFront(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 60)
	before := fakeUserIDs(t, srv)
	h := serveNewestFirst(t, srv, func(n int) int { return n }, true)
	files, db := exportedUserIDs(t, srv)
	if h.late.Load() {
		t.Fatal("page 2 was answered without page 3 before it: not the case this tests")
	}
	after := fakeUserIDs(t, srv)
	if len(after) != len(before)+7 {
		t.Fatalf("the fake holds %d users, %d before: the inserts did not happen", len(after), len(before))
	}
	for what, got := range map[string][]string{"files": files, "database": db} {
		if len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Errorf("%s: a user exported twice: %v", what, got)
		}
		for _, id := range before {
			if _, ok := slices.BinarySearch(got, id); !ok {
				t.Errorf("%s: user %s, there for the whole walk, was not exported", what, id)
			}
		}
		for _, id := range got {
			if _, ok := slices.BinarySearch(after, id); !ok {
				t.Errorf("%s: user %s is not the fake's", what, id)
			}
		}
	}
	files, db = exportedUserIDs(t, srv)
	if !slices.Equal(files, after) || !slices.Equal(db, after) {
		t.Errorf("the next export: %d users to files, %d to the database; the fake holds %d", len(files), len(db), len(after))
	}
}

// TestExportTotalCountLies: whatever totalCount says (a stale low count,
// a page's count, a count near MaxInt64), the export holds every user of
// the fake, and the walk ends on the short page.
func TestExportTotalCountLies(t *testing.T) {
	t.Parallel()
	for name, count := range map[string]func(int) int{
		"stale low": func(int) int { return 15 },
		"per page":  func(int) int { return 10 },
		"zero":      func(int) int { return 0 },
		"MaxInt64":  func(int) int { return math.MaxInt64 },
		"negative":  func(int) int { return -1 },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, _ := exportFixture(t, 45)
			want := fakeUserIDs(t, srv)
			serveNewestFirst(t, srv, count, false)
			files, db := exportedUserIDs(t, srv)
			if !slices.Equal(files, want) || !slices.Equal(db, want) {
				t.Errorf("exported %d users to files, %d to the database; the fake holds %d", len(files), len(db), len(want))
			}
		})
	}
}
