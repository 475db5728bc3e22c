package edapp_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
)

// Read the attempts of a time window. The window's bounds go out as RFC
// 3339 in UTC, whatever location they were given in.
func ExampleAnalyticsService_AllAttempts() {
	srv, err := edapptest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	courseID, lessons, err := srv.AddCourse(edapptest.CourseSpec{
		Title:   "Workplace Safety Basics",
		Lessons: []edapptest.LessonSpec{{Title: "Spotting hazards", MinimumScore: 80}},
	})
	if err != nil {
		log.Fatal(err)
	}
	userID, _ := srv.AddUser(edapptest.UserSpec{Username: "jane"})
	_ = srv.CompleteLesson(userID, lessons[0], 70)
	_ = srv.CompleteLesson(userID, lessons[0], 90)
	client := srv.Client()

	opts := &edapp.AttemptListOptions{
		CourseID:      courseID,
		StartDateTime: time.Now().Add(-7 * 24 * time.Hour),
	}
	for a, err := range client.Analytics.AllAttempts(context.Background(), opts) {
		if err != nil {
			log.Fatal(err)
		}
		if a.Score != nil { // nil: the attempt carries no score
			fmt.Printf("score %g, success %t\n", *a.Score, a.Success)
		}
	}
	// Output:
	// score 70, success false
	// score 90, success true
}
