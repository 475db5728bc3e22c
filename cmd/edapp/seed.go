package main

import (
	"fmt"

	"github.com/edapp-go/edapp/edapptest"
)

// seedLoad loads users and attempts into fake. The fake's bulk loader is
// used when it has one; otherwise users and completions are added one by
// one.
func seedLoad(fake *edapptest.Server, users, attempts int) error {
	if l, ok := any(fake).(interface {
		SeedLoad(users, attempts int) error
	}); ok {
		return l.SeedLoad(users, attempts)
	}
	group, err := fake.AddGroup("Load", "", "")
	if err != nil {
		return err
	}
	courseID, lessons, err := fake.AddCourse(edapptest.CourseSpec{Title: "Load", ExternalID: "LOAD-1", Lessons: []edapptest.LessonSpec{{Title: "L1"}, {Title: "L2"}, {Title: "L3"}}})
	if err != nil {
		return err
	}
	if err := fake.AssignCourse(group, courseID); err != nil {
		return err
	}
	ids := make([]string, users)
	for i := range users {
		ids[i], err = fake.AddUser(edapptest.UserSpec{Username: fmt.Sprintf("load%05d", i), ExternalID: fmt.Sprintf("LOAD-%05d", i), Groups: []string{group}})
		if err != nil {
			return err
		}
	}
	for i := range attempts {
		if err := fake.CompleteLesson(ids[i%users], lessons[(i/users)%len(lessons)], float64(50+i%50)); err != nil {
			return err
		}
	}
	return nil
}
