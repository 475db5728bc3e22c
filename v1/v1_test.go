package v1_test

import (
	"fmt"
	"strings"
	"testing"

	v1 "github.com/edapp-go/edapp/v1"
)

func TestPrintingACourseHidesLaunchTokens(t *testing.T) {
	c := v1.Course{ID: "c1", Title: "Safety", Lessons: []v1.Lesson{{ID: "l1", Title: "Alarm", LaunchURI: "https://web.edapp.com/launch-lesson?token=tok-secret-123&lesson=l1"}}}
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v %+v", c, c.Lessons[0]), fmt.Sprint(&c.Lessons[0])} {
		if strings.Contains(s, "tok-secret-123") {
			t.Fatalf("token printed: %s", s)
		}
		if !strings.Contains(s, "lesson=l1") {
			t.Fatalf("link lost: %s", s)
		}
	}
}
