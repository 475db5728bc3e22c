package main

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
)

// readmeQueries returns the SQL examples of docs/export-database.md by
// their first line,
// "-- <name> (<dialect>)".
func readmeQueries(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/export-database.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range regexp.MustCompile("(?s)```sql\n-- ([^\n]+)\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = m[2]
	}
	return out
}

// queryFixture is an account whose answers to the queries of docs/export-database.md are
// known: the demo account, a learner whose only attempt is 40 days old,
// and three learners who complete the first course this month.
func queryFixture(t *testing.T) (*edapptest.Server, fakedata.Demo) {
	t.Helper()
	var shift atomic.Int64
	srv := edapptest.New(t, edapptest.WithClock(func() time.Time { return time.Now().Add(-time.Duration(shift.Load())) }))
	t.Cleanup(srv.Close)
	demo, err := fakedata.SeedDemo(srv)
	if err != nil {
		t.Fatal(err)
	}
	// A learner last active 40 days ago.
	shift.Store(int64(40 * 24 * time.Hour))
	dormant, err := srv.AddUser(edapptest.UserSpec{Username: "dormant", Groups: []string{demo.GroupIDs[0]}})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.CompleteLesson(dormant, demo.LessonIDs[0][0], 55); err != nil {
		t.Fatal(err)
	}
	shift.Store(0)
	for i := range 3 {
		id, err := srv.AddUser(edapptest.UserSpec{Username: fmt.Sprintf("learner%d", i), Groups: []string{demo.GroupIDs[0]}})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range demo.LessonIDs[0] {
			if err := srv.CompleteLesson(id, l, float64(70+10*i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return srv, demo
}

func rowsOf(t *testing.T, url, query string) [][]string {
	t.Helper()
	db, _ := openTestDB(t, url)
	return rowsOfDB(t, db, query)
}

// rowsOfDB is the rows query returns, each value as text.
func rowsOfDB(t *testing.T, db *sql.DB, query string) [][]string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := scanAny(t, rows, len(cols))
		row := make([]string, len(cols))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			row[i] = fmt.Sprint(v)
		}
		out = append(out, row)
	}
	return out
}

// TestReadmeQueries runs the three queries of docs/export-database.md, in both dialects,
// against an export of queryFixture, and checks them against what the
// fake holds.
func TestReadmeQueries(t *testing.T) {
	t.Parallel()
	queries := readmeQueries(t)
	if len(queries) != 6 {
		t.Fatalf("docs/export-database.md has %d SQL examples, want 3 in two dialects: %v", len(queries), slices.Collect(mapKeys(queries)))
	}
	srv, _ := queryFixture(t)
	want := expectedAnswers(t, srv)
	dialects := map[string]string{"sqlite": "SQLite", "postgres": "PostgreSQL"}
	bothDBs(t, func(t *testing.T, url string) {
		wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url), exitOK)
		d := dialects[strings.SplitN(t.Name(), "/", 2)[1]]
		for _, name := range []string{"completions per course this month", "learners with no activity in 30 days", "average score per lesson"} {
			q, ok := queries[name+" ("+d+")"]
			if !ok {
				t.Errorf("docs/export-database.md has no %q for %s", name, d)
				continue
			}
			got := rowsOf(t, url, q)
			if g := want[name](got); g != "" {
				t.Errorf("%s (%s): %s", name, d, g)
			}
		}
	})
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// expectedAnswers computes each query's answer from the fake's API, and
// returns for each a check of the rows a query gave.
func expectedAnswers(t *testing.T, srv *edapptest.Server) map[string]func([][]string) string {
	t.Helper()
	ctx := context.Background()
	c := srv.Client()
	now := time.Now().UTC()
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	titles := map[string]string{}
	for co, err := range c.Catalog.AllCourses(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		titles[co.ID] = co.Title
		lessons, err := c.Catalog.Lessons(ctx, co.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lessons {
			titles[l.ID] = l.Title
		}
	}
	completions := map[string]int{}
	for p, err := range c.Analytics.AllCourseProgress(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if p.Completed && !p.CompletedDateTime.Before(month) {
			completions[titles[p.CourseID]]++
		}
	}
	active := map[string]bool{}
	type acc struct{ n, sum float64 }
	scores := map[string]*acc{}
	for a, err := range c.Analytics.AllAttempts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if a.StartedDateTime.After(now.Add(-30 * 24 * time.Hour)) {
			active[a.UserID] = true
		}
		if !a.CompletedDateTime.IsZero() && a.Score != nil {
			s := scores[titles[a.LessonID]]
			if s == nil {
				s = &acc{}
				scores[titles[a.LessonID]] = s
			}
			s.n++
			s.sum += *a.Score
		}
	}
	var idle []string
	for u, err := range c.Users.All(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if !active[u.ID] {
			idle = append(idle, u.ID)
		}
	}
	if len(completions) == 0 || len(idle) == 0 || len(scores) == 0 {
		t.Fatalf("the fixture implies nothing to check: %v %v %v", completions, idle, scores)
	}
	return map[string]func([][]string) string{
		"completions per course this month": func(rows [][]string) string {
			got := map[string]int{}
			for _, r := range rows {
				var n int
				fmt.Sscan(r[1], &n)
				got[r[0]] = n
			}
			return diffMaps(got, completions)
		},
		"learners with no activity in 30 days": func(rows [][]string) string {
			var got []string
			for _, r := range rows {
				got = append(got, r[0])
			}
			sort.Strings(got)
			sort.Strings(idle)
			if !slices.Equal(got, idle) {
				return fmt.Sprintf("got %v, want %v", got, idle)
			}
			return ""
		},
		"average score per lesson": func(rows [][]string) string {
			got := map[string]string{}
			for _, r := range rows {
				var avg float64
				fmt.Sscan(r[2], &avg)
				got[r[0]] = r[1] + " " + fmt.Sprintf("%.1f", avg)
			}
			want := map[string]string{}
			for title, s := range scores {
				want[title] = fmt.Sprintf("%.0f %.1f", s.n, math.Round(s.sum/s.n*10)/10)
			}
			return diffMaps(got, want)
		},
	}
}

func diffMaps[V comparable](got, want map[string]V) string {
	for k, v := range want {
		if got[k] != v {
			return fmt.Sprintf("%s: got %v, want %v (all: got %v, want %v)", k, got[k], v, got, want)
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("got %v, want %v", got, want)
	}
	return ""
}

// scanAny scans the current row of rows, n columns, into values of the
// driver's own types.
func scanAny(t testing.TB, rows *sql.Rows, n int) []any {
	t.Helper()
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	return vals
}
