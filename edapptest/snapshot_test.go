package edapptest_test

import (
	"slices"
	"testing"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
)

func TestSnapshotCopiesTheDemo(t *testing.T) {
	t.Parallel()
	s := edapptest.New(t)
	demo, err := fakedata.SeedDemo(s)
	if err != nil {
		t.Fatal(err)
	}
	snap := s.Snapshot()
	if len(snap.Users) != 4 || len(snap.Groups) != 4 || len(snap.Courses) != 2 || len(snap.Collections) != 1 {
		t.Fatalf("snapshot: %d users, %d groups, %d courses, %d collections", len(snap.Users), len(snap.Groups), len(snap.Courses), len(snap.Collections))
	}
	if g := snap.Groups[3]; g.ID != demo.GroupIDs[3] || g.ParentID != demo.GroupIDs[1] {
		t.Errorf("Night Shift = %+v, want a child of Warehouse", g)
	}
	if !slices.Equal(snap.Collections[0].CourseIDs, demo.CourseIDs) {
		t.Errorf("collection courses %v, want %v", snap.Collections[0].CourseIDs, demo.CourseIDs)
	}
	var completed []string
	for _, p := range snap.Progress {
		if !p.CompletedDateTime.IsZero() {
			completed = append(completed, p.UserID+" "+p.CourseID)
		}
	}
	if want := demo.UserIDs[1] + " " + demo.CourseIDs[0]; len(completed) != 1 || completed[0] != want {
		t.Errorf("completions %v, want bob's Manual Handling (%s)", completed, want)
	}
	snap.Users[0].Email = "changed@example.com"
	if s.Snapshot().Users[0].Email == "changed@example.com" {
		t.Error("changing the snapshot changed the fake")
	}
}
