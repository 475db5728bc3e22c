package edapp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/edapp-go/edapp/internal/lenient"
	"github.com/edapp-go/edapp/internal/pager"
)

// decodeAll runs data through every v2 response decoder, as a page and as
// a single record, the way Do does.
func decodeAll(data []byte) {
	decodeAs[User](data)
	decodeAs[UserCourse](data)
	decodeAs[UserGroup](data)
	decodeAs[CourseCollection](data)
	decodeAs[Course](data)
	decodeAs[Lesson](data)
	decodeAs[Attempt](data)
	decodeAs[CourseProgress](data)
	decodeAs[CourseStatistics](data)
	decodeAs[LessonProgressEvent](data)
	decodeAs[UserLessonProgress](data)
	decodeAs[LessonStatistics](data)
	decodeAs[SurveyQuestionDefinition](data)
	decodeAs[SurveyAnswer](data)
	decodeAs[Webhook](data)
}

func decodeAs[T any](data []byte) {
	var one T
	_, _ = lenient.Decode(data, &one)
	var page pager.List[T]
	_, _ = lenient.Decode(data, &page)
}

// FuzzResponseDecoders feeds every fixture, and what the fuzzer makes of
// them, to every response decoder: none may panic.
func FuzzResponseDecoders(f *testing.F) {
	fixtures, _ := filepath.Glob("testdata/*/*.json")
	for _, name := range fixtures {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"items":[{"id":1,"name":{},"roles":"x","customFields":[1]}],"totalCount":"3"}`))
	f.Add([]byte(`{"items":[{"id":"u","userName":"n","userGroupsManaged":["g"],"createDateTime":"2020-01-01","webhookId":"w","zz":{"a":[1]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeAll(data)
	})
}
