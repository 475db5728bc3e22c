// Command analytics-export streams every lesson attempt and every course
// progress record to CSV files with the SDK's All iterators, which fetch up
// to 4 pages at once and hold no more than that in memory, and shows a
// progress line on stderr while it streams.
//
// With EDAPP_API_TOKEN unset it exports from the fake service (edapptest),
// seeded with a demo account and a few hundred generated learners. With the
// token set it exports from the real service (read only).
//
//	go run ./examples/analytics-export -dir /tmp/export -since 2024-01-01
package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"iter"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/examples/internal/demo"
)

func main() {
	dir := flag.String("dir", os.TempDir(), "directory for attempts.csv and courseprogress.csv")
	since := flag.String("since", "", "only attempts started and progress modified since this date (YYYY-MM-DD)")
	pageSize := flag.Int("page-size", edapp.MaxPageSize, "records per request (at most 1000)")
	learners := flag.Int("learners", 1500, "against the fake service: how many learners to generate")
	flag.Parse()
	log.SetFlags(0)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *dir, *since, *pageSize, *learners); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, dir, since string, pageSize, learners int) error {
	client, fake, err := demo.Connect()
	if err != nil {
		return err
	}
	if fake != nil {
		defer fake.Close()
		if err := seed(fake, learners); err != nil {
			return err
		}
	}
	var from time.Time
	if since != "" {
		if from, err = time.Parse(time.DateOnly, since); err != nil {
			return fmt.Errorf("-since: %w", err)
		}
	}
	list := edapp.ListOptions{PageSize: pageSize}

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	attemptsPath, progressPath := filepath.Join(dir, "attempts.csv"), filepath.Join(dir, "courseprogress.csv")
	attempts := client.Analytics.AllAttempts(ctx, &edapp.AttemptListOptions{ListOptions: list, StartDateTime: from})
	n, err := export(attemptsPath, "attempts", attemptHeader, attempts, attemptRow)
	if err != nil {
		return err
	}
	progress := client.Analytics.AllCourseProgress(ctx, &edapp.CourseProgressListOptions{ListOptions: list, ModifiedSinceDateTime: from})
	m, err := export(progressPath, "course progress", progressHeader, progress, progressRow)
	if err != nil {
		return err
	}
	fmt.Printf("wrote %d attempts to %s\nwrote %d course progress records to %s\n", n, attemptsPath, m, progressPath)
	return nil
}

// export writes every record of seq to a CSV file at path. Records go
// straight from the iterator to the file: memory holds the pages in flight
// (4 at most), never the whole export.
func export[T any](path, what string, header []string, seq iter.Seq2[T, error], row func(T) []string) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := csv.NewWriter(f)
	if err := w.Write(header); err != nil {
		return 0, err
	}
	n := 0
	start := time.Now()
	for rec, err := range seq {
		if err != nil {
			fmt.Fprintln(os.Stderr)
			return n, fmt.Errorf("%s: after %d records: %w", what, n, err)
		}
		if err := w.Write(row(rec)); err != nil {
			return n, err
		}
		n++
		if n%250 == 0 {
			fmt.Fprintf(os.Stderr, "\r%s: %d records (%.0f/s)", what, n, float64(n)/time.Since(start).Seconds())
		}
	}
	fmt.Fprintf(os.Stderr, "\r%s: %d records, done in %s\n", what, n, time.Since(start).Round(time.Millisecond))
	w.Flush()
	if err := w.Error(); err != nil {
		return n, err
	}
	return n, f.Close()
}

var attemptHeader = []string{"id", "userId", "userExternalId", "courseId", "courseExternalId", "lessonId", "lessonExternalId", "startedDateTime", "completedDateTime", "score", "success", "earnedStars"}

func attemptRow(a edapp.Attempt) []string {
	return []string{a.ID, a.UserID, a.UserExternalID, a.CourseID, a.CourseExternalID, a.LessonID, a.LessonExternalID,
		a.StartedDateTime.String(), a.CompletedDateTime.String(), scoreCell(a.Score), strconv.FormatBool(a.Success), strconv.Itoa(a.EarnedStars)}
}

var progressHeader = []string{"userId", "userExternalId", "userName", "courseId", "courseExternalId", "courseTitle", "opened", "completed", "completedDateTime", "lessonsTotal", "lessonsCompleted", "percentageCompleted", "score"}

func progressRow(p edapp.CourseProgress) []string {
	return []string{p.UserID, p.UserExternalID, p.UserName, p.CourseID, p.CourseExternalID, p.CourseTitle,
		strconv.FormatBool(p.Opened), strconv.FormatBool(p.Completed), p.CompletedDateTime.String(),
		strconv.Itoa(p.LessonsTotal), strconv.Itoa(p.LessonsCompleted), ftoa(p.PercentageCompleted), scoreCell(p.Score)}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// scoreCell is a score, or an empty cell when none was sent.
func scoreCell(f *float64) string {
	if f == nil {
		return ""
	}
	return ftoa(*f)
}

// seed loads the demo account and generated learners who open and complete
// the Fire Safety lessons with varying scores.
func seed(fake *edapptest.Server, learners int) error {
	d, err := fakedata.SeedDemo(fake)
	if err != nil {
		return err
	}
	company, fireSafety := d.GroupIDs[0], d.LessonIDs[1]
	for i := range learners {
		id, err := fake.AddUser(edapptest.UserSpec{
			Username:   fmt.Sprintf("learner%04d", i),
			Email:      fmt.Sprintf("learner%04d@example.com", i),
			ExternalID: fmt.Sprintf("hr-%04d", i),
			Roles:      []string{"app-user", "prizing-user"},
			Groups:     []string{company},
		})
		if err != nil {
			return err
		}
		for j, lesson := range fireSafety[:1+i%len(fireSafety)] {
			if _, err := fake.OpenLesson(id, lesson); err != nil {
				return err
			}
			if err := fake.CompleteLesson(id, lesson, float64(50+(i*7+j*13)%51)); err != nil {
				return err
			}
		}
	}
	return nil
}
