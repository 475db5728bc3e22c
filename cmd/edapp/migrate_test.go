package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// reportOf runs migrate report -o json on url.
func reportOf(t *testing.T, url string) export.Report {
	t.Helper()
	r := runEnv(t, env{}, "migrate", "report", "--db", url, "-o", "json")
	wantCode(t, r, exitOK)
	var rep export.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	return rep
}

// edappDiffs is the report's EdApp rows by difference: "user course" keys.
func edappDiffs(rep export.Report) map[string][]string {
	out := map[string][]string{}
	for _, row := range rep.Rows {
		if row.EdAppCompleted == nil {
			continue
		}
		for _, d := range row.Differences {
			out[d] = append(out[d], row.EdAppUserID+" "+row.EdAppCourseID)
		}
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

// plantedDiffs is the differences mig planted, as edappDiffs keys them.
func plantedDiffs(t *testing.T, url string, mig *sctest.Migration) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	left := map[string]bool{}
	for _, u := range mig.NoEmail {
		left[u] = true
	}
	if u := mig.Planted.Unmatched; u != nil {
		left[u.EdAppUserID] = true
	}
	for _, r := range rowsOf(t, url, `SELECT user_id, course_id FROM course_progress WHERE source = 'edapp' AND completed_date_time IS NOT NULL`) {
		if left[r[0]] {
			out[export.DiffUnmatched] = append(out[export.DiffUnmatched], r[0]+" "+r[1])
		}
	}
	for _, c := range mig.Planted.MissingCompletions {
		if !left[c.EdAppUserID] {
			out[export.DiffMissing] = append(out[export.DiffMissing], c.EdAppUserID+" "+c.EdAppCourseID)
		}
	}
	scored := map[string]bool{}
	for _, r := range rowsOf(t, url, `SELECT user_id, course_id FROM course_progress WHERE source = 'edapp' AND score > 0`) {
		scored[r[0]+" "+r[1]] = true
	}
	retaken := map[string]bool{} // a retake in SafetyCulture scores the course again
	for _, r := range mig.After.Retakes {
		retaken[r] = true
	}
	for _, c := range mig.Planted.ScoresDropped {
		if k := c.EdAppUserID + " " + c.EdAppCourseID; scored[k] && !left[c.EdAppUserID] && !retaken[c.UserID+" "+c.CourseID] {
			out[export.DiffScoreLost] = append(out[export.DiffScoreLost], k)
		}
	}
	for k, v := range out {
		slices.Sort(v)
		if len(v) == 0 {
			delete(out, k)
		}
	}
	return out
}

// TestMigrateReportFindsThePlantedDifferences: the report of a database
// holding both exports lists exactly the differences the fake planted,
// and with NoAnomalies only the people the migration left behind.
func TestMigrateReportFindsThePlantedDifferences(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]sctest.MigrationOption{"planted": nil, "no anomalies": {sctest.NoAnomalies()}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bothDBs(t, func(t *testing.T, url string) {
				srv := migrationFixture(t, 60)
				sc := sctest.New(t)
				mig, err := sc.SeedMigration(srv, opts...)
				if err != nil {
					t.Fatal(err)
				}
				wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url), exitOK)
				wantCode(t, runEnv(t, scEnv(sc), "export", "--source", "safetyculture", "--db", url), exitOK)
				got, want := edappDiffs(reportOf(t, url)), plantedDiffs(t, url, mig)
				if name == "planted" && (len(want[export.DiffMissing]) == 0 || len(want[export.DiffScoreLost]) == 0) {
					t.Fatalf("the fake planted nothing to find: %v", want)
				}
				for _, d := range []string{export.DiffConflict, export.DiffUnmatched, export.DiffCourse, export.DiffMissing, export.DiffDate, export.DiffScoreLost} {
					if !slices.Equal(got[d], want[d]) {
						t.Errorf("%s: the report lists %v, the fake planted %v", d, got[d], want[d])
					}
				}
			})
		})
	}
}

// TestMigrateReportNeedsBothSources: a database only EdApp was exported
// into is exit 1, naming SafetyCulture.
func TestMigrateReportNeedsBothSources(t *testing.T) {
	t.Parallel()
	srv, _ := exportFixture(t, 2)
	url := sameKind(t, "sqlite:")
	wantCode(t, runExport(t, context.Background(), srv, nil, "--db", url), exitOK)
	r := runEnv(t, env{}, "migrate", "report", "--db", url)
	wantCode(t, r, exitError)
	if !strings.Contains(r.stderr, "safetyculture") || strings.Contains(r.stderr, "edapp and") {
		t.Errorf("stderr %q does not name the source never exported", r.stderr)
	}
}

// migrationFixture is exportFixture whose learners have an email, the one
// identity SafetyCulture's migration carries: all of them move.
func migrationFixture(t *testing.T, n int) *edapptest.Server {
	t.Helper()
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	demo, err := srv.SeedDemo()
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		id, err := srv.AddUser(edapptest.UserSpec{Username: fmt.Sprintf("learner%03d", i), Email: fmt.Sprintf("learner%03d@example.com", i),
			ExternalID: fmt.Sprintf("L%03d", i), Groups: []string{demo.GroupIDs[0]}})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range demo.LessonIDs[i%2] {
			if err := srv.CompleteLesson(id, l, float64(60+i%40)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return srv
}
