package edapp

import (
	"encoding/json"
	"reflect"
	"testing"

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
