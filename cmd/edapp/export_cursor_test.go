package main

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export/dbtest"
)

// TestExportFutureDatedRecord: an attempt dated a year ahead is exported
// and reported, and does not move the cursor past the run's start: an
// attempt recorded after the first run is exported by the second, to a
// database and to files alike.
func TestExportFutureDatedRecord(t *testing.T) {
	t.Parallel()
	for _, dest := range []string{"db", "out"} {
		t.Run(dest, func(t *testing.T) {
			var shift atomic.Int64
			srv := edapptest.New(t, edapptest.WithClock(func() time.Time { return time.Now().Add(time.Duration(shift.Load())) }))
			t.Cleanup(srv.Close)
			demo, err := fakedata.SeedDemo(srv)
			if err != nil {
				t.Fatal(err)
			}
			shift.Store(int64(365 * 24 * time.Hour))
			if err := srv.CompleteLesson(demo.UserIDs[0], demo.LessonIDs[1][0], 90); err != nil {
				t.Fatal(err)
			}
			shift.Store(0)
			args := []string{"--kinds", "attempts", "--db", dbtest.SQLite(t)}
			if dest == "out" {
				args = []string{"--kinds", "attempts", "--out", t.TempDir()}
			}
			r := runExport(t, context.Background(), srv, nil, args...)
			wantCode(t, r, exitOK)
			if !strings.Contains(r.stderr, "warning: attempts: 1 record(s) dated after the service's clock") {
				t.Errorf("no warning:\n%s", r.stderr)
			}
			if err := srv.CompleteLesson(demo.UserIDs[1], demo.LessonIDs[1][1], 70); err != nil {
				t.Fatal(err)
			}
			r = runExport(t, context.Background(), srv, nil, args...)
			wantCode(t, r, exitOK)
			want := len(apiAttemptIDs(t, srv))
			if dest == "out" {
				if got := len(readKind(t, args[3], "attempts")); got != want {
					t.Errorf("%d attempts in the files, the fake holds %d", got, want)
				}
				return
			}
			db, _ := openTestDB(t, args[3])
			if got := dbCounts(t, db, []string{"attempts"})["attempts"]; got != want {
				t.Errorf("%d attempts in the database, the fake holds %d", got, want)
			}
		})
	}
}
