package scsrc

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every SafetyCulture row's raw keeps the members the SDK does not know.
func TestSCRowRawKeepsUnknownMembers(t *testing.T) {
	t.Parallel()
	extra := edapp.RawFields{"time_spent_seconds": json.RawMessage(`1830`), "tags": json.RawMessage("[\"a\",\n\"b\"]")}
	for name, orig := range map[string]scRow{
		"users":       userRowOf(safetyculture.User{ID: "u1", Extra: extra}).scRow,
		"courses":     courseRowOf(safetyculture.Course{ID: "c1", Extra: extra}).scRow,
		"progress":    progressRowOf(safetyculture.CourseProgress{UserID: "u1", CourseID: "c1", Extra: extra}).scRow,
		"groups":      {safetyculture.Group{ID: "g1", Extra: extra}},
		"group_users": {safetyculture.GroupUser{GroupID: "g1", UserID: "u1", Extra: extra}},
		"collections": {safetyculture.CourseCollection{ID: "k1", Extra: extra}},
		"lessons":     {safetyculture.Lesson{ID: "l1", Extra: extra}},
	} {
		b, err := orig.MarshalJSON()
		require.NoError(t, err, name)
		var got map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &got), name)
		assert.JSONEq(t, `1830`, string(got["time_spent_seconds"]), name)
		assert.JSONEq(t, `["a","b"]`, string(got["tags"]), name)
		assert.NotContains(t, string(b), "\n", "%s: a line of JSONL holds no line break", name)
	}
}

// A feed row's raw is its bytes as received: member order, spellings and
// number and time forms kept, only compacted, and bytes that are not
// UTF-8 made U+FFFD.
func TestSCRowRawIsTheFeedRowAsReceived(t *testing.T) {
	t.Parallel()
	row := "{\"last_seen_at\": \"2024-03-05T11:41:10.000Z\",\n \"id\":\"u1\", \"score\": 1.50, \"x\": \"a\xffb\", \"email\":\"a@example.com\"}"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"metadata":{"next_page":null},"data":[` + row + `]}`))
	}))
	defer srv.Close()
	sc, err := safetyculture.NewClient("t", edapp.WithBaseURL(srv.URL))
	require.NoError(t, err)
	page, err := sc.Feeds.ListUsers(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	b, err := userRowOf(page.Items[0]).scRow.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, "{\"last_seen_at\":\"2024-03-05T11:41:10.000Z\",\"id\":\"u1\",\"score\":1.50,\"x\":\"a\uFFFDb\",\"email\":\"a@example.com\"}", string(b))
}

// A catalogue record's raw (courses, lessons, collections) is its bytes as
// received: unknown members, member order, spacing and number spellings
// kept, compacted when it holds a line break, and bytes that are not UTF-8
// made U+FFFD.
func TestSCCatalogueRowRawIsTheRecordAsReceived(t *testing.T) {
	t.Parallel()
	course := "{\"id\": \"c1\",\n \"lessonCount\": 3.0, \"weight\": 1E2, \"x\": \"a\xffb\",  \"title\":\"Lifting\"}"
	lesson := "{\"minimumScore\": 50.00,\n\"id\":\"l1\", \"tags\": [ \"a\" ]}"
	collection := "{\"id\":\"k1\",\t\"sort\": -0.0 , \"title\": \"Safety\"}"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/training/courses/v1":
			_, _ = w.Write([]byte(`{"totalCount":1,"items":[` + course + `]}`))
		case "/training/courses/v1/c1/lessons":
			_, _ = w.Write([]byte(`{"lessons":[` + lesson + `]}`))
		case "/training/collections/v1":
			_, _ = w.Write([]byte(`{"totalCount":1,"items":[` + collection + `]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	sc, err := safetyculture.NewClient("t", edapp.WithBaseURL(srv.URL))
	require.NoError(t, err)
	ctx := context.Background()
	courses, err := sc.Courses.List(ctx, nil)
	require.NoError(t, err)
	lessons, err := sc.Courses.Lessons(ctx, "c1")
	require.NoError(t, err)
	collections, err := sc.Collections.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, courses.Items, 1)
	require.Len(t, lessons, 1)
	require.Len(t, collections.Items, 1)
	for want, row := range map[string]scRow{
		"{\"id\":\"c1\",\"lessonCount\":3.0,\"weight\":1E2,\"x\":\"a\uFFFDb\",\"title\":\"Lifting\"}": courseRowOf(courses.Items[0]).scRow,
		`{"minimumScore":50.00,"id":"l1","tags":["a"]}`:                                               {lessons[0]},
		collection: {collections.Items[0]}, // no line break: as received, spacing included
	} {
		b, err := row.MarshalJSON()
		require.NoError(t, err)
		assert.Equal(t, want, string(b))
	}
}
