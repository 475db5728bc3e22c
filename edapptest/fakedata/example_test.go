package fakedata_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// One company in the middle of its move: the EdApp account, and its
// migrated copy in SafetyCulture with the planted differences listed.
func ExampleSeedMigration() {
	moved := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	edappFake, err := edapptest.NewServer(edapptest.WithClock(func() time.Time { return moved }))
	if err != nil {
		panic(err)
	}
	defer edappFake.Close()
	if err := fakedata.SeedAccount(edappFake, fakedata.AccountSpec{Users: 200, Groups: 10, Courses: 8, Attempts: 4000}); err != nil {
		panic(err)
	}
	fake, err := sctest.NewServer()
	if err != nil {
		panic(err)
	}
	defer fake.Close()
	m, err := fakedata.SeedMigration(fake, edappFake)
	if err != nil {
		panic(err)
	}
	fmt.Println("people:", len(m.Users), "carried:", len(m.Carried), "missing:", len(m.Planted.MissingCompletions))
	fmt.Println("unmatched:", m.Planted.Unmatched.EdAppUserID, "course with another external id:", m.Planted.CourseExternalID.ExternalID)

	// The course-progress feed, as SafetyCulture's exporter reads it.
	req, _ := http.NewRequest(http.MethodGet, fake.URL+"/training/v1/feed/training-course-progress?completion_status=COMPLETION_STATUS_COMPLETED&limit=1", nil)
	req.Header.Set("Authorization", "Bearer "+fake.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var page struct {
		Metadata struct {
			NextPage *string `json:"next_page"`
		} `json:"metadata"`
		Data []struct {
			ProgressPercent float64 `json:"progress_percent"`
			Score           int     `json:"score"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		panic(err)
	}
	fmt.Printf("first row: %v%%, score %d; next page given: %v\n", page.Data[0].ProgressPercent, page.Data[0].Score, page.Metadata.NextPage != nil)
	// Output:
	// people: 200 carried: 714 missing: 15
	// unmatched: usr_170 course with another external id: LOAD-C0002-SC
	// first row: 100%, score 0; next page given: true
}
