package edapptest

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp"
)

// serviceShapes lists, per record type, the fields the real service sends
// as far as they are known (the SDK's design notes on the service, with
// their sources), and the fake's choice where nothing is known. A field the
// fake adds or drops fails TestRecordShapes.
var serviceShapes = []struct {
	name, path string // path answers the record (a page, a bare array or one object)
	wire       any    // the generated wire type that encodes the record
	fields     []string
	ordered    bool // a known client reads the record by position
}{
	{name: "user", wire: v2User{}, path: "/v2/users", fields: []string{"id", "name", "email", "firstName", "lastName",
		"externalId", "timeZone", "roles", "userGroups", "userGroupsManaged", "customFields", "lastActiveDate"}},
	{name: "user group", wire: v2Group{}, path: "/v2/usergroups", fields: []string{"id", "name", "inviteCode", "hasChildren"}},
	// The vendor's export tool stores a course by position in 10 columns.
	{name: "course", wire: v2Course{}, path: "/v2/catalog/courses", ordered: true, fields: []string{"id", "externalId", "title",
		"description", "status", "locale", "duration", "thumbnailUrl", "createdDateTime", "modifiedDateTime"}},
	// No courseId; the minimum score's name is unknown: the fake says minimumScore.
	{name: "lesson", wire: v2Lesson{}, path: "/v2/catalog/courses/{course}/lessons", fields: []string{"id", "externalId", "title",
		"description", "status", "minimumScore"}},
	// Known: id, title, externalId. Other fields are unknown; the fake
	// adds description.
	{name: "course collection", wire: v2Collection{}, path: "/v2/catalog/coursecollections", fields: []string{"id", "title", "externalId",
		"description"}},
	{name: "attempt", wire: wireAttempt{}, path: "/v2/analytics/attempts", fields: []string{"id", "userId", "userExternalId", "courseId",
		"courseExternalId", "lessonId", "lessonExternalId", "startedDateTime", "completedDateTime", "score",
		"success", "earnedStars"}},
	{name: "course progress", wire: wireCourseProgress{}, path: "/v2/analytics/courseprogress", fields: []string{"userId", "userExternalId",
		"userName", "userFirstName", "userLastName", "courseId", "courseExternalId", "courseTitle", "unlocked",
		"unlockedDateTime", "opened", "openedDateTime", "completed", "completedDateTime", "lessonsTotal",
		"lessonsUnlocked", "lessonsCompleted", "archived", "percentageCompleted", "score"}},
	{name: "course statistics", wire: wireCourseStatistics{}, path: "/v2/analytics/coursestatistics", fields: []string{"courseId", "totalUsers",
		"completedCount", "openedCount"}},
	{name: "lesson progress event", wire: wireProgressEvent{}, path: "/v2/analytics/lesson-progress/events", fields: []string{"userId",
		"userEmail", "userFirstName", "userLastName", "courseId", "courseTitle", "courseExternalId", "lessonId",
		"lessonTitle", "lessonExternalId", "eventName", "eventDateTime", "lessonScore"}},
	{name: "user lesson progress event", wire: wireProgressEvent{}, path: "/v2/analytics/users/{user}/lesson-progress/events", fields: []string{"userId",
		"userEmail", "userFirstName", "userLastName", "courseId", "courseTitle", "courseExternalId", "lessonId",
		"lessonTitle", "lessonExternalId", "eventName", "eventDateTime", "lessonScore"}},
	{name: "survey answer", wire: wireSurveyAnswer{}, path: "/v2/analytics/surveyanswers", fields: []string{"id", "courseId", "courseExternalId",
		"lessonId", "lessonExternalId", "slideId", "userId", "userExternalId", "attemptId", "questionId",
		"questionContent", "answerDefinitionId", "answerContent", "answeredDateTime"}},
	{name: "webhook", wire: wireWebhook{}, path: "/v2/webhooks", fields: []string{"id", "eventName", "webHookUrl", "headers", "messageFormat"}},

	// Unknown to every source: the fake's own choice.
	{name: "lesson statistics (fake's choice)", wire: wireLessonStatistics{}, path: "/v2/analytics/lessonstatistics", fields: []string{"lessonId",
		"courseId", "lessonTitle", "totalUsers", "openedCount", "completedCount"}},
	{name: "survey question definition (fake's choice)", wire: wireSurveyQuestion{}, path: "/v2/analytics/surveyquestiondefinitions",
		fields: []string{"id", "courseId", "lessonId", "slideId", "questionType", "questionContent", "answers"}},
	{name: "user lesson progress (fake's choice)", wire: wireLessonProgress{}, path: "/v2/analytics/users/{user}/lesson-progress",
		fields: []string{"userId", "courseId", "lessonId", "lessonTitle", "opened", "openedDateTime", "completed",
			"completedDateTime", "score", "attempts"}},
}

func TestRecordShapes(t *testing.T) {
	h := newHarness(t)
	demo, err := seedDemo(h.Server)
	require.NoError(t, err)
	_, err = h.AddWebhook(WebhookSpec{EventName: edapp.EventLessonCompleted, URL: "http://127.0.0.1:1/hook", Headers: map[string]string{"X": "y"}})
	require.NoError(t, err)
	fill := strings.NewReplacer("{course}", demo.CourseIDs[0], "{user}", demo.UserIDs[1]).Replace
	for _, shape := range serviceShapes {
		t.Run(shape.name, func(t *testing.T) {
			r := h.do("GET", fill(shape.path), nil)
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			first := firstRecord(t, r.body)
			require.NotNil(t, first, "no record at %s", shape.path)
			got := keys(t, first)
			if shape.ordered {
				assert.Equal(t, shape.fields, got, "fields and their order")
			} else {
				assert.ElementsMatch(t, shape.fields, got)
			}
		})
	}
}

// firstRecord returns the first record of a page envelope or a bare array.
func firstRecord(t *testing.T, body []byte) []byte {
	t.Helper()
	if len(body) > 0 && body[0] == '[' {
		var arr []json.RawMessage
		resp{body: body}.json(t, &arr)
		if len(arr) == 0 {
			return nil
		}
		return arr[0]
	}
	var p page[json.RawMessage]
	resp{body: body}.json(t, &p)
	if len(p.Items) == 0 {
		return nil
	}
	return p.Items[0]
}

// TestServiceShapesMatchWireShapes keeps the service's field lists above and
// the generated wire types (wire.shapes) from drifting apart: each list
// names exactly the JSON fields of its type, in the type's order where a
// client reads the record by position.
func TestServiceShapesMatchWireShapes(t *testing.T) {
	t.Parallel()
	for _, shape := range serviceShapes {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			got := jsonFields(reflect.TypeOf(shape.wire))
			if shape.ordered {
				assert.Equal(t, shape.fields, got)
			} else {
				assert.ElementsMatch(t, shape.fields, got)
			}
		})
	}
}

// jsonFields lists the JSON names of a struct's fields, embedded structs'
// fields in place.
func jsonFields(typ reflect.Type) []string {
	var out []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Anonymous {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}
