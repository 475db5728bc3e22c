package edapp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/edapp-go/edapp/internal/lenient"
	"github.com/edapp-go/edapp/internal/pager"
)

// decodeAnswer decodes one answer the way Client.Do does.
func decodeAnswer(data []byte, v any) error {
	_, err := lenient.Decode(data, v)
	return err
}

// droppedLog is a client whose every answer is body, with a logger that
// collects the dropped values Do reports.
func droppedLog(t *testing.T, body []byte) (*Client, func() []string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	var buf bytes.Buffer
	c, err := NewClient("t", WithBaseURL(srv.URL), WithRateLimit(rate.Inf, 0),
		WithLogger(slog.New(slog.NewJSONHandler(&buf, nil))))
	require.NoError(t, err)
	return c, func() []string {
		var fields []string
		for line := range strings.Lines(buf.String()) {
			var rec struct{ Fields []string }
			require.NoError(t, json.Unmarshal([]byte(line), &rec))
			fields = append(fields, rec.Fields...)
		}
		return fields
	}
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

func TestOneBadValueInEveryItemCostsOnlyThoseValues(t *testing.T) {
	for _, envelope := range []bool{true, false} {
		t.Run(fmt.Sprint("envelope=", envelope), func(t *testing.T) {
			c, dropped := droppedLog(t, badDatesPage(1000, envelope))
			p, err := c.Analytics.ListAttempts(context.Background(), &AttemptListOptions{ListOptions: ListOptions{PageSize: 1000}})
			require.NoError(t, err)
			require.Len(t, p.Items, 1000)
			prefix := "items"
			if envelope {
				assert.Equal(t, 1000, p.TotalCount)
			} else {
				prefix = ""
				assert.Equal(t, -1, p.TotalCount)
			}
			for i, a := range p.Items {
				if a.ID != fmt.Sprintf("att-%06d", i) || a.StartedDateTime.IsZero() || !a.CompletedDateTime.IsZero() {
					t.Fatalf("item %d = %+v", i, a)
				}
			}
			got := dropped()
			require.Len(t, got, 1000)
			for i, path := range got {
				require.Equal(t, fmt.Sprintf("%s[%d].completedDateTime", prefix, i), path)
			}
		})
	}
}

func TestDoReportsDroppedValues(t *testing.T) {
	body := []byte(`{"id":"u1","name":"ann","lastActiveDate":{"when":"yesterday"},"roles":"app-user","isArchived":false}`)
	c, dropped := droppedLog(t, body)
	var u User
	require.NoError(t, c.Do(context.Background(), http.MethodGet, "/v2/users/u1", nil, nil, &u))
	assert.Equal(t, []string{"lastActiveDate", "roles"}, dropped())
	assert.Equal(t, "ann", u.Username)
	assert.Equal(t, RawFields{"isArchived": json.RawMessage(`false`)}, u.Extra)

	// A clean answer reports nothing.
	c, dropped = droppedLog(t, []byte(benchUserJSON))
	got, err := c.Users.Get(context.Background(), "u-1001")
	require.NoError(t, err)
	assert.Empty(t, dropped())
	assert.Equal(t, "ann.lee", got.Username)
	assert.Equal(t, []string{"g-2"}, got.ManagedUserGroups, "from userGroupsManaged")
	assert.Nil(t, got.Extra)
}

func TestListDecodeDroppedPaths(t *testing.T) {
	var l pager.List[User]
	dropped, err := lenient.Decode([]byte(`{"totalCount":"two","items":[{"id":"a","customFields":{"x":1}},{"id":"b","userName":"bee","roles":[1,"app-user"]}]}`), &l)
	require.NoError(t, err)
	assert.Equal(t, []string{"items[0].customFields.x", "items[1].roles[0]", "totalCount"}, dropped)
	assert.Equal(t, -1, l.Total())
	assert.Equal(t, []User{
		{ID: "a", CustomFields: map[string]string{}},
		{ID: "b", Username: "bee", Roles: []Role{RoleAppUser}},
	}, l.Items)
}

// TestEveryRecordKeepsUnknownMembers: every v2 record type keeps the
// members it does not know in Extra, alone and in a page, and none has an
// UnmarshalJSON method, which would make encoding/json scan each record
// twice.
func TestEveryRecordKeepsUnknownMembers(t *testing.T) {
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
	var u User
	dropped, err := Unmarshal([]byte(`{"id":"u1","userName":"ann","userGroupsManaged":["g"],"lastActiveDate":"soon","isArchived":true}`), &u)
	require.NoError(t, err)
	assert.Equal(t, "ann", u.Username)
	assert.Equal(t, []string{"g"}, u.ManagedUserGroups)
	assert.Equal(t, []string{"lastActiveDate"}, dropped)
	assert.JSONEq(t, `true`, string(u.Extra["isArchived"]))
}
