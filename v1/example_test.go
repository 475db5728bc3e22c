package v1_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/edapp-go/edapp"
	v1 "github.com/edapp-go/edapp/v1"
)

// The intended flow of an embedding app: list the user's courses, hand the
// learner a fresh launch link for the lesson they pick, and when they come
// back read the completed state from the courses and the detailed report.
func Example() {
	// A stand-in for the service: lesson-1 is completed once the learner
	// has followed the link.
	var done atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		completed := fmt.Sprint(done.Load())
		switch r.URL.Path {
		case "/v1/users/u-1/courses":
			io.WriteString(w, `[{"id":"c-1","title":"Safety basics","lessons":[
				{"id":"lesson-1","title":"Hazards","completed":`+completed+`,
				 "completionDate":"2024-05-06T07:30:00.000Z",
				 "launchURI":"https://web.edapp.com/launch-lesson?token=3f2a-launch-token&lesson=lesson-1"}]}]`)
		case "/v1/reports/user/u-1/course/c-1":
			io.WriteString(w, `{"id":"c-1","title":"Safety basics","completed":`+completed+`,"lessons":[
				{"id":"lesson-1","title":"Hazards","completed":`+completed+`,"duration":73.5,"slides":[
					{"name":"Spot the hazard","interactions":[
						{"date":"2024-05-06T07:20:00.000Z","type":"view","duration":12.5},
						{"date":"2024-05-06T07:20:12.500Z","type":"slide","result":{"correct":true,"too_slow":false}}]}]}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	client, err := edapp.NewClient("api-token", edapp.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	legacy, err := v1.New(client)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	// 1. List the user's courses and lessons.
	courses, err := legacy.Users.Courses(ctx, "u-1")
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range courses {
		for _, l := range c.Lessons {
			fmt.Printf("%s / %s: completed %v\n", c.Title, l.Title, l.Completed)
		}
	}

	// 2. The learner picks a lesson: fetch a fresh link just before use.
	// Its token lives 20 minutes; never store the link.
	link, err := legacy.Users.LaunchLink(ctx, "u-1", "lesson-1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("launch:", link) // String hides the token; give link.URL.Value() to the learner
	fmt.Println("valid for:", link.ExpiresAt().Sub(link.IssuedAt))

	// 3. The learner finishes the lesson and comes back.
	done.Store(true)

	courses, err = legacy.Users.Courses(ctx, "u-1")
	if err != nil {
		log.Fatal(err)
	}
	if l, ok := courses[0].Lesson("lesson-1"); ok {
		fmt.Printf("%s: completed %v at %s\n", l.Title, l.Completed, l.CompletedDate)
	}

	report, err := legacy.Reports.UserCourse(ctx, "u-1", courses[0].ID)
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range report.Lessons {
		fmt.Printf("report %s: completed %v, duration %.1f\n", l.Title, l.Completed, l.Duration)
		for _, s := range l.Slides {
			for _, in := range s.Interactions {
				switch in.Type {
				case v1.InteractionView:
					fmt.Printf("  %s: viewed for %.1f\n", s.Name, in.Duration)
				case v1.InteractionSlide:
					fmt.Printf("  %s: correct %v, too slow %v\n", s.Name, in.Result.Correct, in.Result.TooSlow)
				}
			}
		}
	}
	// Output:
	// Safety basics / Hazards: completed false
	// launch: https://web.edapp.com/launch-lesson?lesson=lesson-1&token=REDACTED
	// valid for: 20m0s
	// Hazards: completed true at 2024-05-06T07:30:00.000Z
	// report Hazards: completed true, duration 73.5
	//   Spot the hazard: viewed for 12.5
	//   Spot the hazard: correct true, too slow false
}

// An empty, non-nil Users list removes every member of the group;
// a nil one leaves the members alone.
func ExampleUserGroupsService_Save() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Println(r.Method, r.URL.Path, string(b))
		io.WriteString(w, `{"id":"g-1","name":"Night shift"}`)
	}))
	defer srv.Close()
	client, err := edapp.NewClient("api-token", edapp.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	legacy, err := v1.New(client)
	if err != nil {
		log.Fatal(err)
	}
	groups := legacy.UserGroups
	ctx := context.Background()

	if _, err := groups.Save(ctx, v1.UserGroup{ID: "g-1", Name: "Night shift"}); err != nil {
		log.Fatal(err)
	}
	if _, err := groups.Save(ctx, v1.UserGroup{ID: "g-1", Users: []string{}}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// POST /v1/usergroups {"id":"g-1","name":"Night shift"}
	// POST /v1/usergroups {"id":"g-1","users":[]}
}
