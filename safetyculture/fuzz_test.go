package safetyculture

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/lenient"
	"github.com/edapp-go/edapp/internal/pager"
)

func seedFixtures(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"metadata":{"next_page":7},"data":[{"course_id":1,"openedAt":"x"}]}`))
	f.Add([]byte(`[{"id":{}},null,"x"]`))
}

// FuzzDecoders runs every decoder the client uses on one input: none may
// panic, and a well-formed answer is never refused for an odd value.
func FuzzDecoders(f *testing.F) {
	seedFixtures(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var progress feedAnswer[CourseProgress]
		_, _ = lenient.Decode(data, &progress)
		var users feedAnswer[User]
		_, _ = lenient.Decode(data, &users)
		var sites feedAnswer[Site]
		_, _ = lenient.Decode(data, &sites)
		var courses pager.List[Course]
		_, _ = lenient.Decode(data, &courses)
		var attempts pager.List[LessonAttempt]
		_, _ = lenient.Decode(data, &attempts)
		lessons := listOf[Lesson]{key: "lessons"}
		_, _ = lenient.Decode(data, &lessons)
		hook := oneOf[Webhook]{key: "webhook"}
		_, _ = lenient.Decode(data, &hook)
		var rankings Rankings
		_, _ = edapp.Unmarshal(data, &rankings)
		if ev, err := ParseWebhookEvent(data); err == nil {
			_ = ev.Name()
			_ = ev.Key()
		}
	})
}
