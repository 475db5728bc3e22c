package edapp

import (
	"encoding/json"
	"maps"
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
