package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"maps"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/sqldest"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// editingProxy serves a fake through edit, which sees every JSON object of
// its answers (nested ones included) and may change it, or drop it from
// the array holding it by returning false.
type editingProxy struct {
	*httptest.Server
	mu   sync.Mutex
	edit func(obj map[string]any) bool
}

func newEditingProxy(t *testing.T, h http.Handler) *editingProxy {
	p := &editingProxy{edit: func(map[string]any) bool { return true }} // every answer re-encoded alike
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		p.mu.Lock()
		edit := p.edit
		p.mu.Unlock()
		var v any
		if edit != nil && json.Unmarshal(body, &v) == nil {
			body, _ = json.Marshal(editJSON(v, edit))
		}
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(body)
	}))
	t.Cleanup(p.Close)
	return p
}

// set makes edit the proxy's, from the next answer on.
func (p *editingProxy) set(edit func(obj map[string]any) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.edit = edit
}

func editJSON(v any, edit func(map[string]any) bool) any {
	switch v := v.(type) {
	case map[string]any:
		editObject(v, edit)
	case []any:
		out := v[:0]
		for _, x := range v {
			if m, ok := x.(map[string]any); ok {
				if editObject(m, edit) {
					out = append(out, m)
				}
				continue
			}
			out = append(out, editJSON(x, edit))
		}
		return out
	}
	return v
}

// editObject edits obj's values, then obj itself, once.
func editObject(obj map[string]any, edit func(map[string]any) bool) bool {
	for k, x := range obj {
		if _, ok := x.(map[string]any); !ok {
			obj[k] = editJSON(x, edit)
		}
	}
	for _, x := range obj {
		if m, ok := x.(map[string]any); ok {
			editObject(m, edit)
		}
	}
	return edit(obj)
}

// historyEdits are the changes the proxy makes to a fake's answers.
type historyEdits struct {
	renamed, hidden, course string    // a user renamed, a user gone, a course renamed
	left                    [2]string // a SafetyCulture group membership gone: user, group
}

func (e historyEdits) apply(obj map[string]any) bool {
	id, _ := obj["id"].(string)
	switch {
	case id != "" && id == e.hidden:
		return false
	case e.left[0] != "" && obj["user_id"] == e.left[0] && obj["group_id"] == e.left[1]:
		return false
	case id != "" && id == e.renamed:
		for _, k := range []string{"firstName", "firstname"} {
			if _, ok := obj[k]; ok {
				obj[k] = "Renamed"
			}
		}
	case id != "" && id == e.course:
		if title, ok := obj["title"].(string); ok {
			obj["title"] = title + " (renamed)"
		}
	}
	return true
}

// historySource is one source's fake behind a proxy, as the history tests
// drive it.
type historySource struct {
	name   string
	proxy  *editingProxy
	edits  historyEdits
	export func(t *testing.T, url string, args ...string) result
	// move takes user out of group from and into group to.
	move func(t *testing.T, user, from, to string)
}

// update makes the proxy answer with s.edits.
func (s *historySource) update() { s.proxy.set(s.edits.apply) }

func edappHistorySource(t *testing.T) *historySource {
	srv, _ := exportFixture(t, 3)
	p := newEditingProxy(t, srv.Handler())
	return &historySource{name: sqldest.SourceEdApp, proxy: p,
		export: func(t *testing.T, url string, args ...string) result {
			return runEnv(t, env{"EDAPP_API_TOKEN": srv.Token, "EDAPP_BASE_URL": p.URL}, append([]string{"export", "--db", url}, args...)...)
		},
		move: func(t *testing.T, user, from, to string) {
			if err := srv.RemoveUserFromGroup(from, user); err != nil {
				t.Fatal(err)
			}
			if err := srv.AddGroupMember(edapptest.GroupMemberSpec{GroupID: to, UserID: user}); err != nil {
				t.Fatal(err)
			}
		}}
}

func scHistorySource(t *testing.T) *historySource {
	srv, _ := exportFixture(t, 3)
	sc := sctest.New(t)
	if _, err := fakedata.SeedMigration(sc, srv); err != nil {
		t.Fatal(err)
	}
	p := newEditingProxy(t, sc.Handler())
	s := &historySource{name: sqldest.SourceSafetyCulture, proxy: p,
		export: func(t *testing.T, url string, args ...string) result {
			return runEnv(t, env{"SAFETYCULTURE_API_TOKEN": sc.Token, "SAFETYCULTURE_BASE_URL": p.URL}, append([]string{"export", "--source", "safetyculture", "--db", url}, args...)...)
		}}
	s.move = func(t *testing.T, user, from, to string) {
		if err := sc.AddGroupUser(to, user); err != nil {
			t.Fatal(err)
		}
		s.edits.left = [2]string{user, from}
	}
	return s
}

// historyTables are the tables that keep their versions.
func historyTables(t *testing.T) []dbschema.Table {
	var out []dbschema.Table
	for _, tb := range dbschema.Tables() {
		if h, ok := dbschema.Lookup(tb.Name + "_history"); ok {
			out = append(out, h)
		}
	}
	if len(out) < 17 {
		t.Fatalf("%d history tables", len(out))
	}
	return out
}

// historyKey is h's key but valid_from: its table's key.
func historyKey(h dbschema.Table) []string { return h.Key[:len(h.Key)-1] }

// checkHistoryInvariant checks, for every history table and the source,
// that T holds a row if and only if T_history holds exactly one open
// version of its key, with the same digest.
func checkHistoryInvariant(t *testing.T, db *sql.DB, d dbschema.Dialect, source string) {
	t.Helper()
	for _, h := range historyTables(t) {
		tb := strings.TrimSuffix(h.Name, "_history")
		var same []string
		for _, k := range historyKey(h) {
			same = append(same, "h."+k+" = t."+k)
		}
		match := strings.Join(same, " AND ")
		key := strings.Join(historyKey(h), ", ")
		for what, q := range map[string]string{
			"rows without their open version":   `SELECT COUNT(*) FROM ` + tb + ` t WHERE source = ? AND NOT EXISTS (SELECT 1 FROM ` + h.Name + ` h WHERE ` + match + ` AND h.valid_to IS NULL AND h.edapp_digest = t.edapp_digest)`,
			"open versions without their row":   `SELECT COUNT(*) FROM ` + h.Name + ` t WHERE source = ? AND valid_to IS NULL AND NOT EXISTS (SELECT 1 FROM ` + tb + ` h WHERE ` + match + `)`,
			"keys with two open versions":       `SELECT COUNT(*) FROM (SELECT ` + key + ` FROM ` + h.Name + ` WHERE source = ? AND valid_to IS NULL GROUP BY ` + key + ` HAVING COUNT(*) > 1) AS twice`,
			"versions ending before they begin": `SELECT COUNT(*) FROM ` + h.Name + ` WHERE source = ? AND valid_to <= valid_from`,
		} {
			if n := countRows(t, db, rebind(d, strings.Replace(q, "?", "'"+source+"'", 1))); n != 0 {
				t.Errorf("%s: %d %s", h.Name, n, what)
			}
		}
	}
}

// historySizes counts the rows of every history table.
func historySizes(t *testing.T, db *sql.DB) map[string]int {
	t.Helper()
	var names []string
	for _, h := range historyTables(t) {
		names = append(names, h.Name)
	}
	return dbCounts(t, db, names)
}

// asOfColumns are the columns of table an as-of query compares: all but
// edapp_run and edapp_digest, and the users' activity, which the open
// version takes in place (see dbschema's historyVersionDrop).
func asOfColumns(table string) []string {
	tb, _ := dbschema.Lookup(table)
	var out []string
	for _, c := range tb.Columns {
		switch {
		case c.Name == "edapp_run" || c.Name == "edapp_digest":
		case table == "users" && (c.Name == "last_active_date" || c.Name == "raw"):
		default:
			out = append(out, c.Name)
		}
	}
	return out
}

// rowsNow is the source's rows of table, as text, sorted.
func rowsNow(t *testing.T, db *sql.DB, table, source string) []string {
	return historyRowsOf(t, db, `SELECT `+strings.Join(asOfColumns(table), ", ")+` FROM `+table+` WHERE source = '`+source+`'`)
}

// rowsAsOf is the source's rows of table as they stood at the time at
// (a value scanned from the database), by the documented query.
func rowsAsOf(t *testing.T, db *sql.DB, d dbschema.Dialect, table, source string, at any) []string {
	q := rebind(d, `SELECT `+strings.Join(asOfColumns(table), ", ")+` FROM `+table+`_history WHERE source = '`+source+`' AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)`)
	return historyRowsOf(t, db, q, at, at)
}

func historyRowsOf(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		var b strings.Builder
		for i, v := range scanAny(t, rows, len(cols)) {
			if bs, ok := v.([]byte); ok {
				v = string(bs)
			}
			fmt.Fprintf(&b, "%s=%v|", cols[i], v)
		}
		out = append(out, b.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// firstValue is the first column of q's first row, as the driver scans it.
func firstValue(t *testing.T, db *sql.DB, q string, args ...any) any {
	t.Helper()
	var v any
	if err := db.QueryRow(q, args...).Scan(&v); err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	return v
}

// versionsOf is the versions of a key of table, oldest first, as
// "value of col|open" or "value of col|closed".
func versionsOf(t *testing.T, db *sql.DB, d dbschema.Dialect, table, col, source string, key map[string]string) []string {
	t.Helper()
	where := []string{"source = '" + source + "'"}
	for k, v := range key {
		where = append(where, k+" = '"+v+"'")
	}
	q := `SELECT ` + col + `, CASE WHEN valid_to IS NULL THEN 'open' ELSE 'closed' END FROM ` + table + `_history WHERE ` + strings.Join(where, " AND ") + ` ORDER BY valid_from`
	var out []string
	for _, r := range rowsOfDB(t, db, q) {
		out = append(out, strings.Join(r, "|"))
	}
	return out
}

// TestExportHistory: on SQLite and PostgreSQL, for both sources, the
// history tables keep every version: a no-change re-run adds none; a user
// renamed, gone, moved between groups and back again with the same id, a
// course renamed, each closes and opens the versions it should, counted in
// --stats; the invariant holds after every run; and the as-of query for the
// time of the first run answers that run's rows, row for row.
func TestExportHistory(t *testing.T) {
	t.Parallel()
	for _, src := range []struct {
		name string
		new  func(*testing.T) *historySource
	}{{"edapp", edappHistorySource}, {"safetyculture", scHistorySource}} {
		t.Run(src.name, func(t *testing.T) {
			t.Parallel()
			bothDBs(t, func(t *testing.T, url string) { testHistory(t, src.new(t), url) })
		})
	}
}

func testHistory(t *testing.T, s *historySource, url string) {
	wantCode(t, s.export(t, url), exitOK)
	db, d := openTestDB(t, url)
	checkHistoryInvariant(t, db, d, s.name)
	first := map[string][]string{}
	for _, tb := range []string{"users", "group_members", "courses", "course_progress"} {
		if first[tb] = rowsNow(t, db, tb, s.name); len(first[tb]) == 0 {
			t.Fatalf("%s: no rows", tb)
		}
	}
	t1 := firstValue(t, db, `SELECT MIN(valid_from) FROM users_history`)
	sizes := historySizes(t, db)
	stats := filepath.Join(t.TempDir(), "stats.json")
	wantCode(t, s.export(t, url, "--stats", stats), exitOK)
	if got := historySizes(t, db); !maps.Equal(got, sizes) {
		t.Errorf("a re-run that changed nothing: history %v, was %v", got, sizes)
	}
	if st := readStatsFile(t, stats); len(st.VersionsOpened)+len(st.VersionsClosed) > 0 {
		t.Errorf("a re-run that changed nothing: --stats versions %v, %v", st.VersionsOpened, st.VersionsClosed)
	}

	e := pickHistoryEdits(t, db, s.name)
	s.edits = historyEdits{renamed: e.renamed, hidden: e.hidden, course: e.course}
	s.move(t, e.moved, e.from, e.to)
	s.update()
	wantCode(t, s.export(t, url, "--stats", stats), exitOK)
	checkHistoryInvariant(t, db, d, s.name)
	want := map[string][]string{
		"renamed":  {e.firstName + "|closed", "Renamed|open"},
		"hidden":   {"1|closed"},
		"left":     {"1|closed"},
		"joined":   {"1|open"},
		"course":   {e.title + "|closed", e.title + " (renamed)|open"},
		"as found": nil,
	}
	got := map[string][]string{
		"renamed": versionsOf(t, db, d, "users", "first_name", s.name, map[string]string{"id": e.renamed}),
		"hidden":  versionsOf(t, db, d, "users", "1", s.name, map[string]string{"id": e.hidden}),
		"left":    versionsOf(t, db, d, "group_members", "1", s.name, map[string]string{"group_id": e.from, "user_id": e.moved}),
		"joined":  versionsOf(t, db, d, "group_members", "1", s.name, map[string]string{"group_id": e.to, "user_id": e.moved}),
		"course":  versionsOf(t, db, d, "courses", "title", s.name, map[string]string{"id": e.course}),
	}
	for what := range want {
		if !slices.Equal(got[what], want[what]) {
			t.Errorf("%s: versions %q, want %q", what, got[what], want[what])
		}
	}
	st := readStatsFile(t, stats)
	if st.VersionsOpened["courses"] != 1 || st.VersionsClosed["courses"] != 1 || st.VersionsOpened["users"] < 1 || st.VersionsClosed["users"] < 2 {
		t.Errorf("--stats: versions opened %v, closed %v", st.VersionsOpened, st.VersionsClosed)
	}

	// Back with the same id: a new version, the gap between them the time
	// the walks did not find the user.
	s.edits.hidden = ""
	s.update()
	wantCode(t, s.export(t, url), exitOK)
	checkHistoryInvariant(t, db, d, s.name)
	if got, want := versionsOf(t, db, d, "users", "1", s.name, map[string]string{"id": e.hidden}), []string{"1|closed", "1|open"}; !slices.Equal(got, want) {
		t.Errorf("a user back: versions %q, want %q", got, want)
	}
	for tb, rows := range first {
		if got := rowsAsOf(t, db, d, tb, s.name, t1); !slices.Equal(got, rows) {
			t.Errorf("%s as of the first run: %d rows, the first run wrote %d\n%q\n%q", tb, len(got), len(rows), got, rows)
		}
	}
}

// historyPick is what testHistory changes: users renamed, hidden and
// moved (from a group to another), a course renamed, with their names
// before.
type historyPick struct {
	renamed, hidden, moved, from, to, course string
	firstName, title                         string
}

func pickHistoryEdits(t *testing.T, db *sql.DB, source string) historyPick {
	t.Helper()
	in := ` WHERE source = '` + source + `'`
	members := rowsOfDB(t, db, `SELECT user_id, group_id FROM group_members`+in+` ORDER BY user_id, group_id`)
	groups := rowsOfDB(t, db, `SELECT id FROM groups`+in+` ORDER BY id`)
	users := rowsOfDB(t, db, `SELECT id, first_name FROM users`+in+` AND first_name IS NOT NULL ORDER BY id`)
	courses := rowsOfDB(t, db, `SELECT id, title FROM courses`+in+` ORDER BY id`)
	if len(members) == 0 || len(groups) < 2 || len(users) < 3 || len(courses) == 0 {
		t.Fatalf("too few rows to change: %d members, %d groups, %d users, %d courses", len(members), len(groups), len(users), len(courses))
	}
	p := historyPick{moved: members[0][0], from: members[0][1], course: courses[0][0], title: courses[0][1]}
	for _, g := range groups {
		if !slices.ContainsFunc(members, func(m []string) bool { return m[0] == p.moved && m[1] == g[0] }) {
			p.to = g[0]
			break
		}
	}
	for _, u := range users {
		switch {
		case u[0] == p.moved:
		case p.renamed == "":
			p.renamed, p.firstName = u[0], u[1]
		case p.hidden == "":
			p.hidden = u[0]
		}
	}
	if p.to == "" || p.hidden == "" {
		t.Fatalf("nothing to change: %+v", p)
	}
	return p
}
