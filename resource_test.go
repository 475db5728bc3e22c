package edapp

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp/internal/lenient"
	"github.com/edapp-go/edapp/internal/pager"
)

// TestEveryRecordKeepsUnknownMembers: every v2 record type keeps the
// members it does not know in Extra, alone and in a page, and none has an
// UnmarshalJSON method, which would make encoding/json scan each record
// twice.
func TestEveryRecordKeepsUnknownMembers(t *testing.T) {
	t.Parallel()
	checkExtra[User](t)
	checkExtra[UserCourse](t)
	checkExtra[UserGroup](t)
	checkExtra[CourseCollection](t)
	checkExtra[Course](t)
	checkExtra[Lesson](t)
	checkExtra[Attempt](t)
	checkExtra[CourseProgress](t)
	checkExtra[CourseStatistics](t)
	checkExtra[LessonProgressEvent](t)
	checkExtra[UserLessonProgress](t)
	checkExtra[LessonStatistics](t)
	checkExtra[SurveyQuestionDefinition](t)
	checkExtra[SurveyAnswerDefinition](t)
	checkExtra[SurveyAnswer](t)
	checkExtra[Webhook](t)
}

func checkExtra[T any](t *testing.T) {
	typ := reflect.TypeFor[T]()
	t.Run(typ.Name(), func(t *testing.T) {
		assert.False(t, reflect.PointerTo(typ).Implements(reflect.TypeFor[json.Unmarshaler]()), "has an UnmarshalJSON method")
		f, ok := typ.FieldByName("Extra")
		require.True(t, ok, "no Extra field")
		assert.Equal(t, `json:"-"`, string(f.Tag))
		assert.Equal(t, reflect.TypeFor[RawFields](), f.Type)

		const rec = `{"zzUnknown":[1,{"a":2}]}`
		want := RawFields{"zzUnknown": json.RawMessage(`[1,{"a":2}]`)}
		extra := func(v *T) any { return reflect.ValueOf(v).Elem().FieldByName("Extra").Interface() }

		var one T
		dropped, err := lenient.Decode([]byte(rec), &one)
		require.NoError(t, err)
		assert.Empty(t, dropped)
		assert.Equal(t, want, extra(&one))

		for _, page := range []string{`[` + rec + `,{}]`, `{"items":[` + rec + `,{}],"totalCount":2}`} {
			var l pager.List[T]
			dropped, err := lenient.Decode([]byte(page), &l)
			require.NoError(t, err)
			assert.Empty(t, dropped)
			require.Len(t, l.Items, 2)
			assert.Equal(t, want, extra(&l.Items[0]), page)
			assert.Nil(t, extra(&l.Items[1]), page)
		}
	})
}

func TestUnmarshalReadsARecordAsTheClientDoes(t *testing.T) {
	t.Parallel()
	var u User
	dropped, err := Unmarshal([]byte(`{"id":"u1","userName":"ann","userGroupsManaged":["g"],"lastActiveDate":"soon","isArchived":true}`), &u)
	require.NoError(t, err)
	assert.Equal(t, "ann", u.Username)
	assert.Equal(t, []string{"g"}, u.ManagedUserGroups)
	assert.Equal(t, []string{"lastActiveDate"}, dropped)
	assert.JSONEq(t, `true`, string(u.Extra["isArchived"]))
}

// fillExported sets every exported field of the struct v points to, as
// reflection sees them (promoted ones included), to a value that is not
// zero, as a caller could.
func fillExported(t *testing.T, v any) {
	t.Helper()
	rv := reflect.ValueOf(v).Elem()
	for _, sf := range reflect.VisibleFields(rv.Type()) {
		if !sf.IsExported() || sf.Anonymous {
			continue
		}
		f := rv.FieldByIndex(sf.Index)
		switch {
		case sf.Type == reflect.TypeFor[Time]():
			f.Set(reflect.ValueOf(Time{time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)}))
		case f.Kind() == reflect.String:
			f.SetString("x")
		case f.Kind() == reflect.Slice:
			f.Set(reflect.MakeSlice(sf.Type, 1, 1))
		case f.Kind() == reflect.Map && sf.Name != "Extra":
			f.Set(reflect.MakeMapWithSize(sf.Type, 0))
		case f.Kind() == reflect.Int, f.Kind() == reflect.Float64, f.Kind() == reflect.Bool:
			f.Set(reflect.ValueOf(1).Convert(sf.Type))
		}
	}
}

// Records show only their documented fields: a caller that sets every
// field it can reach gets only the documented names from json.Marshal, and
// the other spellings the service uses stay in the decoder.
func TestRecordsMarshalOnlyTheirDocumentedFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		record any
		names  string
	}{
		{&User{}, "id name email firstName lastName externalId timeZone roles userGroups managedUserGroups customFields lastActiveDate"},
		{&Course{}, "id externalId title description status locale duration thumbnailUrl createdDateTime modifiedDateTime"},
		{&Webhook{}, "id eventName webHookUrl headers messageFormat"},
	} {
		name := reflect.TypeOf(tc.record).Elem().Name()
		fillExported(t, tc.record)
		b, err := json.Marshal(tc.record)
		require.NoError(t, err)
		var members map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &members))
		assert.ElementsMatch(t, strings.Fields(tc.names), slices.Collect(maps.Keys(members)), name)
	}
}

func TestIDsStayOneSegment(t *testing.T) {
	t.Parallel()
	var paths []string
	c := coreServer(t, func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.EscapedPath())
		io.WriteString(w, `{}`)
	})
	ctx := context.Background()
	for _, id := range []string{".a", "a/b", "a?b", "ok"} {
		_, err := c.Users.Get(ctx, id)
		require.NoError(t, err, id)
	}
	assert.Equal(t, []string{"/v2/users/.a", "/v2/users/a%2Fb", "/v2/users/a%3Fb", "/v2/users/ok"}, paths)
	_, err := c.Users.Get(ctx, " ")
	assert.ErrorIs(t, err, ErrInvalidInput)
	assert.EqualError(t, err, "edapp: invalid input: userID is empty")
}

// Dot-only ids would go out as %2E or %2E%2E, which a decoding proxy may
// take for "." or "..": they are refused like empty ids, before sending.
func TestDotOnlyIDsAreRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	client, mux := setup(t)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request sent: %s %s", r.Method, r.URL.EscapedPath())
	})
	ctx := context.Background()
	for _, id := range []string{".", "..", "..."} {
		calls := map[string]error{}
		_, calls["Users.Get"] = client.Users.Get(ctx, id)
		_, calls["Users.Update"] = client.Users.Update(ctx, id, UserUpdateParams{FirstName: Ptr("A")})
		calls["Users.Delete"] = client.Users.Delete(ctx, id)
		_, calls["Users.Courses"] = client.Users.Courses(ctx, id)
		_, calls["UserGroups.ListUsers"] = client.UserGroups.ListUsers(ctx, id, nil)
		_, calls["UserGroups.ListChildren"] = client.UserGroups.ListChildren(ctx, id, nil)
		calls["UserGroups.AddUser"] = client.UserGroups.AddUser(ctx, id, "u-1")
		calls["UserGroups.RemoveUser"] = client.UserGroups.RemoveUser(ctx, "g-1", id)
		_, calls["Catalog.Lessons"] = client.Catalog.Lessons(ctx, id)
		_, calls["Catalog.ListCollectionCourses"] = client.Catalog.ListCollectionCourses(ctx, id, nil)
		calls["Webhooks.Delete"] = client.Webhooks.Delete(ctx, id)
		for name, err := range calls {
			assert.ErrorIs(t, err, ErrInvalidInput, "%s(%q)", name, id)
		}
		_, err := client.Users.Get(ctx, id)
		assert.EqualError(t, err, `edapp: invalid input: userID "`+id+`" is only dots`)
	}
	// Dots inside an id are fine.
	mux.HandleFunc("/v2/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"id":"a..b"}`))
	})
	_, err := client.Users.Get(ctx, "a..b")
	assert.NoError(t, err)
}

// One rule for v2 and v1: only "success": false is a failure.
func TestDoCheckedRule(t *testing.T) {
	t.Parallel()
	for body, fails := range map[string]bool{
		`{"success":true}`:                      false,
		`{}`:                                    false,
		``:                                      false,
		`not json`:                              false,
		`[]`:                                    false,
		`{"success":"true"}`:                    false,
		`{"success":false}`:                     true,
		`{"success":"False","message":"owner"}`: true,
	} {
		client, mux := setup(t)
		mux.HandleFunc("DELETE /v2/webhooks/w-1", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(body))
		})
		err := client.DoChecked(context.Background(), http.MethodDelete, "/v2/webhooks/w-1", nil, nil)
		if !fails {
			assert.NoError(t, err, body)
			continue
		}
		assert.ErrorIs(t, err, ErrUnsuccessful, body)
		var apiErr *APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, body, string(apiErr.Body))
	}
}
