package edapp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/edapp-go/edapp/edapptest"
)

// The catalog: courses, then the lessons of each (a bare array, unpaged).
func ExampleCatalogService_Lessons() {
	srv, err := edapptest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	_, _, err = srv.AddCourse(edapptest.CourseSpec{
		Title: "Forklift Refresher",
		Lessons: []edapptest.LessonSpec{
			{Title: "Pre-start checks"},
			{Title: "Load limits", MinimumScore: 80},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	client := srv.Client()
	ctx := context.Background()

	for c, err := range client.Catalog.AllCourses(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(c.Title)
		lessons, err := client.Catalog.Lessons(ctx, c.ID)
		if err != nil {
			log.Fatal(err)
		}
		for _, l := range lessons {
			fmt.Printf("- %s (minimum score %g)\n", l.Title, l.MinimumScore)
		}
	}
	// Output:
	// Forklift Refresher
	// - Pre-start checks (minimum score 0)
	// - Load limits (minimum score 80)
}
