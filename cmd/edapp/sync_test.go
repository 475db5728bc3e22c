package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
)

// syncFixture is a fake account with two groups and four users: E1 (to be
// updated), E2 (already as the file says), E3 (not in the file) and one
// without an external id.
func syncFixture(t *testing.T) (*edapptest.Server, map[string]string) {
	t.Helper()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	ids := map[string]string{}
	var err error
	if ids["warehouse"], err = srv.AddGroup(edapptest.GroupSpec{Name: "Warehouse"}); err != nil {
		t.Fatal(err)
	}
	if ids["office"], err = srv.AddGroup(edapptest.GroupSpec{Name: "Office"}); err != nil {
		t.Fatal(err)
	}
	for _, u := range []edapptest.UserSpec{
		{Username: "bob", Email: "bob@old.example", FirstName: "Bob", ExternalID: "E1", Groups: []string{ids["warehouse"]}},
		{Username: "carol", Email: "carol@example.com", FirstName: "Carol", LastName: "Diaz", ExternalID: "E2", Roles: []string{"app-user"}, Groups: []string{ids["office"]}},
		{Username: "dave", ExternalID: "E3"},
		{Username: "admin-no-ext", Email: "admin@example.com"},
	} {
		id, err := srv.AddUser(u)
		if err != nil {
			t.Fatal(err)
		}
		ids[u.Username] = id
	}
	return srv, ids
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const syncCSV = `externalId,username,email,firstName,lastName,userGroups,roles,timeZone
E1,bob,bob@new.example,Bob,Baker,Warehouse;Office,app-user;prizing-user,Australia/Sydney
E2,carol,carol@example.com,Carol,Diaz,Office,app-user,
E4,erin,erin@example.com,Erin,Ng,Warehouse,app-user;reviewer,Europe/Paris
`

// stableIDs replaces the fake's generated ids with names, for golden files.
func stableIDs(s string, ids map[string]string) string {
	for name, id := range ids {
		s = strings.ReplaceAll(s, id, "<"+name+">")
	}
	return s
}

func TestSyncPlanApplyIdempotent(t *testing.T) {
	t.Parallel()
	srv, ids := syncFixture(t)
	file := writeFile(t, "users.csv", syncCSV)

	// The plan changes nothing.
	before := srv.Requests()
	r := runFake(t, srv, "users", "sync", "--csv", file, "--delete-missing")
	wantCode(t, r, exitOK)
	golden(t, "sync_plan.golden", stableIDs(r.stdout, ids))
	for _, req := range srv.Requests()[len(before):] {
		if req.Method != "GET" {
			t.Errorf("a plan sent %s %s", req.Method, req.Path)
		}
	}
	noToken(t, srv.Token, r)

	// Apply carries it out.
	r = runFake(t, srv, "users", "sync", "--csv", file, "--delete-missing", "--apply")
	wantCode(t, r, exitOK)
	if !strings.Contains(r.stdout, "applied: 1 created, 1 updated, 1 deleted") {
		t.Fatalf("apply output:\n%s", r.stdout)
	}
	for _, line := range []string{"\ncreated E4 (id ", "\nupdated ", "\ndeleted E3 (id "} {
		if !strings.Contains("\n"+r.stdout, line) {
			t.Errorf("no line %q in the apply output:\n%s", line[1:], r.stdout)
		}
	}

	c := srv.Client()
	ctx := context.Background()
	byExt := map[string]edapp.User{}
	var noExt int
	for u, err := range c.Users.All(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if u.ExternalID == "" {
			noExt++
		}
		byExt[u.ExternalID] = u
	}
	if _, ok := byExt["E3"]; ok {
		t.Error("E3 was not deleted")
	}
	if noExt != 1 {
		t.Errorf("%d users without an external id, want 1 (never deleted)", noExt)
	}
	e1 := byExt["E1"]
	if e1.Email != "bob@new.example" || e1.LastName != "Baker" || e1.TimeZone != "Australia/Sydney" || len(e1.UserGroups) != 2 || len(e1.Roles) != 2 {
		t.Errorf("E1 not updated: %+v", e1)
	}
	e4 := byExt["E4"]
	if e4.Username != "erin" || e4.TimeZone != "Europe/Paris" || len(e4.UserGroups) != 1 || e4.UserGroups[0] != ids["warehouse"] {
		t.Errorf("E4 not created as asked: %+v", e4)
	}

	// A second run plans nothing.
	r = runFake(t, srv, "users", "sync", "--csv", file, "--delete-missing", "--apply")
	wantCode(t, r, exitOK)
	if got := r.stdout; got != "plan: 0 to create, 0 to update, 0 to delete, 3 unchanged\n" {
		t.Errorf("second run:\n%s", got)
	}
}

func TestSyncKeepsUsersWithoutExternalID(t *testing.T) {
	t.Parallel()
	srv, ids := syncFixture(t)
	file := writeFile(t, "users.csv", "externalId\nE1\n")
	r := runFake(t, srv, "users", "sync", "--csv", file, "--delete-missing", "--max-deletes", "2", "--apply")
	wantCode(t, r, exitOK)
	if _, err := srv.Client().Users.Get(context.Background(), ids["admin-no-ext"]); err != nil {
		t.Errorf("the user without an external id is gone: %v", err)
	}
	if !strings.Contains(r.stdout, "2 deleted") {
		t.Errorf("want E2 and E3 deleted:\n%s", r.stdout)
	}
}

func TestSyncWithoutDeleteMissingDeletesNothing(t *testing.T) {
	t.Parallel()
	srv, _ := syncFixture(t)
	file := writeFile(t, "users.csv", "externalId\nE1\n")
	r := runFake(t, srv, "users", "sync", "--csv", file, "--apply")
	wantCode(t, r, exitOK)
	if r.stdout != "plan: 0 to create, 0 to update, 0 to delete, 1 unchanged\n" {
		t.Errorf("got:\n%s", r.stdout)
	}
}

func TestSyncBadRowsChangeNothing(t *testing.T) {
	t.Parallel()
	srv, _ := syncFixture(t)
	file := writeFile(t, "users.csv", `externalId,username,roles,userGroups
E1,bob,app-user,Warehouse
,nobody,app-user,
E5,frank,wizard,Warehouse
E1,bob2,app-user,
E6,gina,app-user,Nowhere
E7,,app-user,
E8,hank,app-user,Office
`)
	before := srv.Requests()
	r := runFake(t, srv, "users", "sync", "--csv", file, "--apply", "--delete-missing")
	wantCode(t, r, exitError)
	golden(t, "sync_bad_rows.golden", untimed(r.stderr))
	for _, req := range srv.Requests()[len(before):] {
		if req.Method != "GET" {
			t.Errorf("a refused file sent %s %s", req.Method, req.Path)
		}
	}
}

func TestSyncUnknownColumn(t *testing.T) {
	t.Parallel()
	srv, _ := syncFixture(t)
	file := writeFile(t, "users.csv", "externalId,shoeSize\nE1,42\n")
	r := runFake(t, srv, "users", "sync", "--csv", file)
	wantCode(t, r, exitError)
	if !strings.Contains(r.stderr, `unknown column "shoeSize"`) {
		t.Errorf("stderr: %s", r.stderr)
	}
}

func TestSyncFromStdin(t *testing.T) {
	t.Parallel()
	srv, _ := syncFixture(t)
	r := runCtx(t, context.Background(), fakeEnv(srv), "externalId,email\nE1,bob@old.example\n", "users", "sync", "--csv", "-")
	wantCode(t, r, exitOK)
	if !strings.HasPrefix(r.stdout, "plan: 0 to create, 0 to update, 0 to delete, 1 unchanged") {
		t.Errorf("got:\n%s", r.stdout)
	}
}

// changingRequests counts the requests after before that could change
// something (anything but GET).
func changingRequests(srv *edapptest.Server, before int) int {
	n := 0
	for _, req := range srv.Requests()[before:] {
		if req.Method != "GET" {
			n++
		}
	}
	return n
}

func TestSyncRefusesInputThatCannotBeRight(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, csv, want string
	}{
		{"header only", "externalId,username\n", "no data rows"},
		{"missing required column", "username\nbob\n", "the externalId column is required"},
		{"duplicate external id", "externalId\nE1\nE1\n", `line 3: duplicate externalId "E1" (first on line 2)`},
		{"control character", "externalId,username\n\"E9\x07\",zed\n", `externalId "E9\a" holds a control`},
		{"zero-width space", "externalId,username\nE9\u200b,zed\n", `externalId "E9\u200b" holds a control, format`},
		{"look-alike letter", "externalId,username\n\u04151,zed\n", `externalId "\u04151" mixes ASCII with Cyrillic`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := syncFixture(t)
			file := writeFile(t, "users.csv", tc.csv)
			before := len(srv.Requests())
			r := runFake(t, srv, "users", "sync", "--csv", file, "--delete-missing", "--max-deletes", "3", "--apply")
			wantCode(t, r, exitError)
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr does not say %q:\n%s", tc.want, r.stderr)
			}
			if n := changingRequests(srv, before); n > 0 {
				t.Errorf("a refused file sent %d changing request(s)", n)
			}
		})
	}
}

// manyUsers adds n users with external ids M000..M(n-1).
func manyUsers(t *testing.T, srv *edapptest.Server, n int) {
	t.Helper()
	for i := range n {
		if _, err := srv.AddUser(edapptest.UserSpec{Username: fmt.Sprintf("m%03d", i), ExternalID: fmt.Sprintf("M%03d", i)}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSyncMaxDeletes(t *testing.T) {
	t.Parallel()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	manyUsers(t, srv, 20)
	// The file lists one user that does not exist yet: every managed user
	// would go.
	file := writeFile(t, "users.csv", "externalId,username\nNEW1,newbie\n")

	before := len(srv.Requests())
	r := runFake(t, srv, "users", "sync", "--csv", file, "--delete-missing", "--apply")
	wantCode(t, r, exitError)
	for _, want := range []string{"deletes 20 of 20 managed users", "limit of 2", "--max-deletes 20"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
		}
	}
	if n := changingRequests(srv, before); n > 0 {
		t.Fatalf("a refused plan sent %d changing request(s)", n)
	}

	r = runFake(t, srv, "users", "sync", "--csv", file, "--delete-missing", "--max-deletes", "0", "--apply")
	wantCode(t, r, exitError)
	if !strings.Contains(r.stderr, "limit of 0") {
		t.Errorf("--max-deletes 0:\n%s", r.stderr)
	}

	r = runFake(t, srv, "users", "sync", "--csv", file, "--delete-missing", "--max-deletes", "20", "--apply")
	wantCode(t, r, exitOK)
	if !strings.Contains(r.stdout, "applied: 1 created, 0 updated, 20 deleted") {
		t.Errorf("--max-deletes 20:\n%s", r.stdout)
	}
}

func TestSyncMaxDeletesUsage(t *testing.T) {
	t.Parallel()
	srv, _ := syncFixture(t)
	file := writeFile(t, "users.csv", syncCSV)
	for _, args := range [][]string{
		{"--max-deletes", "-1", "--delete-missing"},
		{"--max-deletes", "5"},
	} {
		r := runFake(t, srv, append([]string{"users", "sync", "--csv", file}, args...)...)
		wantCode(t, r, exitUsage)
		if !strings.Contains(r.stderr, "--max-deletes") {
			t.Errorf("%v: %s", args, r.stderr)
		}
	}
}

// A failed step ends the run with what failed and why, once prefixed, and
// the summary counts only what the service did.
func TestSyncApplyFailure(t *testing.T) {
	t.Parallel()
	srv, _ := syncFixture(t)
	file := writeFile(t, "users.csv", "externalId,username\nE9,admin-no-ext\n") // the username is taken
	r := runFake(t, srv, "users", "sync", "--csv", file, "--apply")
	wantCode(t, r, exitError)
	if !strings.Contains(r.stderr, "edapp: users sync: create E9: POST /v2/users: 409 Conflict") || !strings.Contains(r.stderr, "(0 change(s) made)") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "applied: 0 created, 0 updated, 0 deleted\n") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	noDoublePrefix(t, r)
}
