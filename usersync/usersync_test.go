package usersync

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
)

func readRows(t *testing.T, s string) []Row {
	t.Helper()
	rows, err := ReadCSV(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestParseHeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		header []string
		err    string
	}{
		{[]string{"\ufeffEXTERNALID", " email "}, ""},
		{[]string{"username"}, "externalId column is required"},
		{[]string{"externalId", "shoeSize"}, `unknown column "shoeSize"`},
		{[]string{"externalId", "externalid"}, `column "externalId" appears twice`},
	} {
		_, err := ParseHeader(tc.header)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseHeader(%q) = %v, want %q", tc.header, err, tc.err)
		}
	}
}

func TestHeaderParseRow(t *testing.T) {
	t.Parallel()
	h, err := ParseHeader([]string{"roles", "externalId", "userGroups", "email"})
	if err != nil {
		t.Fatal(err)
	}
	row, err := h.ParseRow(7, []string{" app-user; ;reviewer ", " E1 ", "", "a@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	want := Row{Line: 7, ExternalID: "E1", Email: "a@example.com", Roles: []string{"app-user", "reviewer"}}
	if fmt.Sprint(row) != fmt.Sprint(want) || row.UserGroups != nil {
		t.Errorf("ParseRow = %+v, want %+v", row, want)
	}
	var p *Problem
	if _, err := h.ParseRow(8, []string{"x"}); !errors.As(err, &p) || p.Line != 8 {
		t.Errorf("short row: %v", err)
	}
}

func TestReadCSVListsEveryShortRow(t *testing.T) {
	t.Parallel()
	_, err := ReadCSV(strings.NewReader("externalId,username\nE1\nE2,b\nE3,c,d\n"))
	var ie *InputError
	if !errors.As(err, &ie) || len(ie.Problems) != 2 || ie.Problems[0].Line != 2 || ie.Problems[1].Line != 4 {
		t.Fatalf("ReadCSV = %v", err)
	}
}

func TestSuspicious(t *testing.T) {
	t.Parallel()
	for id, bad := range map[string]bool{
		"E1": false, "emp-00042/ä": false, "Иван": false, "Ωμεγα": false, "社員42": false,
		"E\x001": true, "E1\u200b": true, "\u202eE1": true, "E\u00a01": true, "E\u03011": true,
		"\uff25\uff11": true, "\u04151": true, "\u0395-1": true, "E\xff": true,
	} {
		if got := suspicious(id) != ""; got != bad {
			t.Errorf("suspicious(%+q) = %q, want refused=%v", id, suspicious(id), bad)
		}
	}
}

// account is a fake account with n managed users (M000...) and one without
// an external id.
func account(t *testing.T, n int) (*edapptest.Server, *edapp.Client) {
	t.Helper()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	for i := range n {
		if _, err := srv.AddUser(edapptest.UserSpec{Username: fmt.Sprintf("m%03d", i), ExternalID: fmt.Sprintf("M%03d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := srv.AddUser(edapptest.UserSpec{Username: "admin"}); err != nil {
		t.Fatal(err)
	}
	return srv, srv.Client()
}

func load(t *testing.T, c *edapp.Client) Account {
	t.Helper()
	acct, err := Load(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return acct
}

func TestNewPlanRefusesNoRows(t *testing.T) {
	t.Parallel()
	_, c := account(t, 3)
	_, err := NewPlan(readRows(t, "externalId\n"), load(t, c), Options{DeleteMissing: true, MaxDeletes: 100})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "no data rows") {
		t.Fatalf("NewPlan = %v", err)
	}
}

func TestNewPlanMaxDeletes(t *testing.T) {
	t.Parallel()
	srv, c := account(t, 20)
	acct := load(t, c)
	rows := []Row{{ExternalID: "NEW", Username: "new"}}
	for _, tc := range []struct {
		max, want int
		refused   bool
	}{
		{DefaultMaxDeletes(acct), 2, true}, {0, 0, true}, {19, 19, true}, {20, 20, false},
	} {
		p, err := NewPlan(rows, acct, Options{DeleteMissing: true, MaxDeletes: tc.max})
		var tm *TooManyDeletesError
		if errors.As(err, &tm) != tc.refused || p.MaxDeletes() != tc.want || len(p.Deletes) != 20 {
			t.Errorf("MaxDeletes %d: plan cap %d, err %v", tc.max, p.MaxDeletes(), err)
		}
		if tc.refused {
			// Apply refuses the plan too, before any request.
			srv.ResetRequests()
			if _, err := p.Apply(context.Background(), c, nil); !errors.As(err, &tm) || len(srv.Requests()) != 0 {
				t.Errorf("Apply over the cap: %v, %d requests", err, len(srv.Requests()))
			}
		}
	}
	for _, bad := range []int{-1, -2, math.MinInt} {
		if _, err := NewPlan(rows, acct, Options{MaxDeletes: bad}); !errors.Is(err, edapp.ErrInvalidInput) {
			t.Errorf("MaxDeletes %d: %v, want an edapp.ErrInvalidInput", bad, err)
		}
	}
	// At least 1: 5 managed users allow one deletion by default.
	_, c5 := account(t, 5)
	if n := DefaultMaxDeletes(load(t, c5)); n != 1 {
		t.Errorf("default cap for 5 users: %d", n)
	}
}

func TestPlanApplyConverges(t *testing.T) {
	t.Parallel()
	srv, c := account(t, 3)
	group, err := srv.AddGroup(edapptest.GroupSpec{Name: "Office"})
	if err != nil {
		t.Fatal(err)
	}
	rows := readRows(t, "externalId,username,email,userGroups,roles\nM000,m000,new@example.com,Office,app-user\nNEW,newbie,,,\n")
	ctx := context.Background()
	p, err := NewPlan(rows, load(t, c), Options{DeleteMissing: true, MaxDeletes: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Creates) != 1 || len(p.Updates) != 1 || len(p.Deletes) != 2 || p.Managed != 3 {
		t.Fatalf("plan: %+v", p)
	}
	var done []string
	res, err := p.Apply(ctx, c, func(a Action, id string) { done = append(done, string(a.Kind)+" "+a.ExternalID()) })
	if err != nil || res != (Result{Created: 1, Updated: 1, Deleted: 2}) {
		t.Fatalf("Apply = %+v, %v", res, err)
	}
	if got := strings.Join(done, ","); got != "create NEW,update M000,delete M001,delete M002" {
		t.Errorf("reported %s", got)
	}
	acct := load(t, c)
	for _, u := range acct.Users {
		if u.ExternalID == "M000" && (u.Email != "new@example.com" || len(u.UserGroups) != 1 || u.UserGroups[0] != group) {
			t.Errorf("M000 not updated: %+v", u)
		}
	}
	p, err = NewPlan(rows, acct, Options{DeleteMissing: true})
	if err != nil || !p.Empty() || p.Unchanged != 2 {
		t.Errorf("second plan: %+v, %v", p, err)
	}
}

// losing wraps the fake so that POST /v2/users is carried out but its answer
// never arrives (the connection is closed), and, with failGets set, every
// later GET fails.
func losing(t *testing.T, srv *edapptest.Server, failGets *atomic.Bool) *edapp.Client {
	t.Helper()
	h := srv.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v2/users":
			h.ServeHTTP(httptest.NewRecorder(), r)
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case r.Method == http.MethodGet && failGets.Load():
			http.Error(w, "down", http.StatusServiceUnavailable)
		default:
			h.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(ts.Close)
	return srv.Client(edapp.WithBaseURL(ts.URL), edapp.WithRetry(edapp.RetryPolicy{MaxRetries: 0}))
}

func TestApplyLostCreateAnswer(t *testing.T) {
	t.Parallel()
	rows := []Row{{ExternalID: "NEW", Username: "newbie"}}
	ctx := context.Background()

	// The check finds the user: the create counts, and the next plan is empty.
	srv, _ := account(t, 1)
	var failGets atomic.Bool
	c := losing(t, srv, &failGets)
	p, err := NewPlan(rows, load(t, c), Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Apply(ctx, c, nil)
	var ae *ApplyError
	if !errors.As(err, &ae) || res.Created != 1 || res.Unknown != nil || !strings.Contains(err.Error(), "created all the same") {
		t.Fatalf("Apply = %+v, %v", res, err)
	}
	if p, err := NewPlan(rows, load(t, c), Options{}); err != nil || !p.Empty() {
		t.Errorf("next plan: %+v, %v", p, err)
	}

	// The check fails too: the outcome is unknown, and said so.
	srv, _ = account(t, 1)
	c = losing(t, srv, &failGets)
	p, err = NewPlan(rows, load(t, c), Options{})
	if err != nil {
		t.Fatal(err)
	}
	failGets.Store(true)
	res, err = p.Apply(ctx, c, nil)
	if err == nil || res.Created != 0 || res.Unknown == nil || res.Unknown.ExternalID() != "NEW" {
		t.Fatalf("Apply = %+v, %v", res, err)
	}
	if !strings.Contains(err.Error(), "unknown") {
		t.Errorf("error does not say the outcome is unknown: %v", err)
	}
	failGets.Store(false)
	if p, err := NewPlan(rows, load(t, c), Options{}); err != nil || !p.Empty() {
		t.Errorf("next plan does not converge: %+v, %v", p, err)
	}
}

func TestApplyRefusedCreateIsNotCounted(t *testing.T) {
	t.Parallel()
	srv, c := account(t, 1)
	p, err := NewPlan([]Row{{ExternalID: "NEW", Username: "newbie"}}, load(t, c), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.AddUser(edapptest.UserSpec{Username: "newbie"}); err != nil { // taken meanwhile
		t.Fatal(err)
	}
	res, err := p.Apply(context.Background(), c, nil)
	if !errors.Is(err, edapp.ErrConflict) || res != (Result{}) {
		t.Errorf("Apply = %+v, %v", res, err)
	}
}

func TestReadCSVRefusesCellsNotUTF8(t *testing.T) {
	// "Zoë" and "Müller" in Latin-1, after a UTF-8 header with a byte order mark.
	_, err := ReadCSV(strings.NewReader("\ufeffexternalId,username,firstName\nE1,zoe,Zo\xeb\nE2,ok,Émile\nE3,mm,M\xfcller\n"))
	var ie *InputError
	if !errors.As(err, &ie) || len(ie.Problems) != 2 || ie.Problems[0].Line != 2 || ie.Problems[1].Line != 4 {
		t.Fatalf("ReadCSV = %v", err)
	}
	if !strings.Contains(err.Error(), "not valid UTF-8") || !strings.Contains(err.Error(), "iconv -f latin1 -t utf-8") {
		t.Errorf("no hint: %v", err)
	}
	if _, err := ReadCSV(strings.NewReader("externalId,first\xe9\nE1,x\n")); err == nil || !strings.Contains(err.Error(), "line 1: column 2 is not valid UTF-8") {
		t.Errorf("header not UTF-8: %v", err)
	}
	if rows, err := ReadCSV(strings.NewReader("\ufeffexternalId,firstName\nE1,Zoë\n")); err != nil || rows[0].FirstName != "Zoë" {
		t.Errorf("UTF-8 with a byte order mark: %+v, %v", rows, err)
	}
}

func TestIDKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"emp-001", "EMP-001", true},
		{"E1 ", "e1", true},
		{" \tE1", "E1", true},
		{"straße", "STRASSE", false}, // simple folding: ß is not ss
		{"ΣΊΣΥΦΟΣ", "σίσυφος", true},
		{"ς", "σ", true},
		{"K", "\u212a", true}, // Kelvin sign folds to k
		{"E1", "E2", false},
		{"é", "e\u0301", false}, // no NFC
	} {
		if got := idKey(tc.a) == idKey(tc.b); got != tc.same {
			t.Errorf("idKey(%+q) == idKey(%+q): %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

func TestNewPlanMatchesIDsIgnoringCaseAndSpace(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	for _, spec := range []edapptest.UserSpec{{Username: "a", ExternalID: "EMP-001"}, {Username: "b", ExternalID: "emp-002 "}} {
		if _, err := srv.AddUser(spec); err != nil {
			t.Fatal(err)
		}
	}
	rows := readRows(t, "externalId,username\nemp-001,a\nEMP-002,b\n")
	p, err := NewPlan(rows, load(t, srv.Client()), Options{DeleteMissing: true, MaxDeletes: 2})
	if err != nil || !p.Empty() || p.Unchanged != 2 {
		t.Fatalf("plan: %+v, %v", p, err)
	}
	if _, err := NewPlan(readRows(t, "externalId,username\nE1,a\ne1 ,b\n"), Account{}, Options{}); err == nil || !strings.Contains(err.Error(), "duplicate externalId") {
		t.Errorf("rows E1 and e1: %v", err)
	}
}

func TestNewPlanRefusesServiceIDsThatCollide(t *testing.T) {
	t.Parallel()
	acct := Account{Users: []edapp.User{{ID: "41", ExternalID: "EMP-1"}, {ID: "42", ExternalID: "emp-1 "}, {ID: "43", ExternalID: "E9"}}}
	_, err := NewPlan([]Row{{ExternalID: "E9"}}, acct, Options{})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `"EMP-1" (id 41) and "emp-1 " (id 42)`) {
		t.Fatalf("NewPlan = %v", err)
	}
}

func TestPlanCheckRefusesDeleteAndCreateOfOneID(t *testing.T) {
	t.Parallel()
	srv, c := account(t, 1)
	p := &Plan{
		Creates:    []Action{{Kind: Create, Row: Row{Line: 2, ExternalID: "m000", Username: "m"}}},
		Deletes:    []Action{{Kind: Delete, User: edapp.User{ID: "7", ExternalID: "M000"}}},
		maxDeletes: 1,
	}
	err := p.Check()
	if err == nil || !strings.Contains(err.Error(), `deletes "M000" (id 7) and creates "m000"`) {
		t.Fatalf("Check = %v", err)
	}
	srv.ResetRequests()
	if _, err := p.Apply(context.Background(), c, nil); err == nil || len(srv.Requests()) != 0 {
		t.Errorf("Apply = %v after %d requests", err, len(srv.Requests()))
	}
}
