package v1_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/lenient"
	v1 "github.com/edapp-go/edapp/v1"
)

func TestUsersSaveInsert(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(`{"id":"u-9","username":"ann","email":"ann@example.com","usergroups":["g1","g2"],"firstName":"Ann","lastName":"Lee"}`))
	in := v1.User{Username: "ann", Email: "ann@example.com", UserGroups: []string{"g1", "g2"}, FirstName: "Ann", LastName: "Lee"}
	got, err := f.client().Users.Save(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	wantRequest(t, f.only(), "POST", "/v1/users",
		`{"username":"ann","email":"ann@example.com","usergroups":["g1","g2"],"firstName":"Ann","lastName":"Lee"}`)
	want := in
	want.ID = "u-9"
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("Save = %+v, want %+v", *got, want)
	}
}

func TestUsersSaveUpdate(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(`{"id":"u-9","username":"ann","email":"new@example.com"}`))
	got, err := f.client().Users.Save(context.Background(), v1.User{ID: "u-9", Email: "new@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	// The id in the body is what makes it an update; unset fields stay out.
	wantRequest(t, f.only(), "POST", "/v1/users", `{"id":"u-9","email":"new@example.com"}`)
	if got.ID != "u-9" || got.Username != "ann" || got.Email != "new@example.com" {
		t.Errorf("Save = %+v", *got)
	}
}

func TestUsersSaveUserGroupsNilVersusEmpty(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		groups []string
		body   string
	}{
		{"nil", nil, `{"id":"u-1"}`},
		{"empty", []string{}, `{"id":"u-1","usergroups":[]}`},
		{"set", []string{"g1"}, `{"id":"u-1","usergroups":["g1"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, ok(`{"id":"u-1"}`))
			if _, err := f.client().Users.Save(context.Background(), v1.User{ID: "u-1", UserGroups: tc.groups}); err != nil {
				t.Fatal(err)
			}
			wantRequest(t, f.only(), "POST", "/v1/users", tc.body)
		})
	}
}

func TestUsersSaveAnswerWithoutID(t *testing.T) {
	t.Parallel()
	t.Run("update keeps the id sent", func(t *testing.T) {
		f := newFake(t, ok(`{"username":"ann"}`))
		got, err := f.client().Users.Save(context.Background(), v1.User{ID: "u-1", Username: "ann"})
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != "u-1" || got.Username != "ann" {
			t.Errorf("Save = %+v", *got)
		}
	})
	t.Run("empty answer to an update gives the user sent", func(t *testing.T) {
		f := newFake(t, ok(``))
		in := v1.User{ID: "u-1", Username: "ann", UserGroups: []string{"g1"}}
		got, err := f.client().Users.Save(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*got, in) {
			t.Errorf("Save = %+v, want %+v", *got, in)
		}
		got.UserGroups[0] = "changed"
		if in.UserGroups[0] != "g1" {
			t.Error("the result shares the caller's slice")
		}
	})
	t.Run("insert is an error", func(t *testing.T) {
		f := newFake(t, ok(`{"username":"ann"}`))
		_, err := f.client().Users.Save(context.Background(), v1.User{Username: "ann"})
		if err == nil || !strings.Contains(err.Error(), "no id") {
			t.Fatalf("err = %v, want an error about the missing id", err)
		}
	})
}

func TestUserDecodeUsernameSpellings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`{"username":"a"}`, "a"},
		{`{"userName":"b"}`, "b"},
		{`{"name":"c"}`, "c"},
		{`{"Username":"d"}`, "d"},
		{`{"name":"c","userName":"b","username":"a"}`, "a"},
		{`{"name":"c","userName":"b"}`, "b"},
		{`{"username":"","name":"c"}`, "c"},
	} {
		var u v1.User
		if _, err := lenient.Decode([]byte(tc.in), &u); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if u.Username != tc.want {
			t.Errorf("%s: Username = %q, want %q", tc.in, u.Username, tc.want)
		}
	}
	var u v1.User
	if _, err := lenient.Decode([]byte(`{"id":"1","userGroups":["g"],"firstname":"F","lastname":"L","email":"e"}`), &u); err != nil {
		t.Fatal(err)
	}
	if want := (v1.User{ID: "1", UserGroups: []string{"g"}, FirstName: "F", LastName: "L", Email: "e"}); !reflect.DeepEqual(u, want) {
		t.Errorf("decoded %+v, want %+v", u, want)
	}
}

func TestDeleteSuccess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		call func(*v1.Client) error
		path string
	}{
		{"user", func(c *v1.Client) error { return c.Users.Delete(context.Background(), "u-1") }, "/v1/users/u-1"},
		{"group", func(c *v1.Client) error { return c.UserGroups.Delete(context.Background(), "g-1") }, "/v1/usergroups/g-1"},
		{"escaped", func(c *v1.Client) error { return c.Users.Delete(context.Background(), "a/b c?d") }, "/v1/users/a%2Fb%20c%3Fd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, body := range []string{`{"success":true}`, `{}`, ``, `{"success":"true"}`, `{"deleted":1}`} {
				f := newFake(t, ok(body))
				if err := tc.call(f.client()); err != nil {
					t.Fatalf("answer %#q: %v", body, err)
				}
				wantRequest(t, f.only(), "DELETE", tc.path, "")
			}
		})
	}
}

func TestDeleteUnsuccessful(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, msg string
	}{
		{"false", `{"success":false}`, `the service answered {"success": false}`},
		{"false with message", `{"success":false,"message":"user is an owner"}`, "user is an owner"},
		{"false as a string", `{"success":"false"}`, `the service answered {"success": false}`},
		{"message with a launch token", `{"success":false,"message":"see https://x/launch-lesson?token=SECRET-TOK&lesson=1"}`,
			"see https://x/launch-lesson?token=REDACTED&lesson=1"},
	} {
		for _, kind := range []string{"user", "group"} {
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				f := newFake(t, ok(tc.body))
				c := f.client()
				var err error
				path := "/v1/users/id-1"
				if kind == "user" {
					err = c.Users.Delete(context.Background(), "id-1")
				} else {
					path = "/v1/usergroups/id-1"
					err = c.UserGroups.Delete(context.Background(), "id-1")
				}
				if !errors.Is(err, edapp.ErrUnsuccessful) {
					t.Fatalf("err = %v, want edapp.ErrUnsuccessful", err)
				}
				var apiErr *edapp.APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("err = %T, want *edapp.APIError", err)
				}
				if apiErr.StatusCode != http.StatusOK || apiErr.Method != "DELETE" || apiErr.Path != path || apiErr.Message != tc.msg {
					t.Errorf("APIError = %+v", apiErr)
				}
				if errors.Is(err, edapp.ErrNotFound) {
					t.Error("a 2xx answer matches ErrNotFound")
				}
				if strings.Contains(err.Error(), "SECRET-TOK") {
					t.Errorf("error shows the launch token: %v", err)
				}
			})
		}
	}
}

func TestDeleteNotFound(t *testing.T) {
	t.Parallel()
	f := newFake(t, reply{Status: http.StatusNotFound, Body: `{"message":"no such user"}`})
	err := f.client().Users.Delete(context.Background(), "nobody")
	if !errors.Is(err, edapp.ErrNotFound) || errors.Is(err, edapp.ErrUnsuccessful) {
		t.Fatalf("err = %v, want ErrNotFound only", err)
	}
	var apiErr *edapp.APIError
	if !errors.As(err, &apiErr) || apiErr.Message != "no such user" {
		t.Errorf("err = %#v", err)
	}
}

func TestEmptyIDsSendNothing(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	c := f.client()
	ctx := context.Background()
	calls := map[string]func() error{
		"Users.Delete":             func() error { return c.Users.Delete(ctx, "") },
		"UserGroups.Delete":        func() error { return c.UserGroups.Delete(ctx, " ") },
		"Users.Courses":            func() error { _, err := c.Users.Courses(ctx, ""); return err },
		"Users.LaunchLink user":    func() error { _, err := c.Users.LaunchLink(ctx, "", "l-1"); return err },
		"Users.LaunchLink lesson":  func() error { _, err := c.Users.LaunchLink(ctx, "u-1", ""); return err },
		"Reports.UserCourse user":  func() error { _, err := c.Reports.UserCourse(ctx, "", "c-1"); return err },
		"Reports.UserCourse cours": func() error { _, err := c.Reports.UserCourse(ctx, "u-1", "\t"); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, edapp.ErrInvalidInput) {
			t.Errorf("%s: err = %v, want edapp.ErrInvalidInput", name, err)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// A Client not made by New (its zero value) fails every call before
// sending; New itself refuses a nil client (TestNewOptions).
func TestZeroClient(t *testing.T) {
	t.Parallel()
	var c v1.Client
	c.Users, c.Reports = new(v1.UsersService), new(v1.ReportsService)
	if _, err := c.Users.Save(context.Background(), v1.User{}); !errors.Is(err, edapp.ErrInvalidInput) {
		t.Errorf("Save on a zero client: %v", err)
	}
	if _, err := c.Reports.Activities(context.Background()); !errors.Is(err, edapp.ErrInvalidInput) {
		t.Errorf("Activities on a zero client: %v", err)
	}
}
