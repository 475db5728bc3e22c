package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/sqldest"
)

// TestMigrateReportFormats: on one planted move, -o csv is one row per
// difference, -o table and -o html render, --fail-on-differences exits
// 1, and a database whose identities are stale is exit 2.
func TestMigrateReportFormats(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		movedDB(t, url)
		rep := reportOf(t, url)
		r := runEnv(t, env{}, "migrate", "report", "--db", url, "-o", "csv")
		wantCode(t, r, exitOK)
		rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
		if err != nil || len(rows) != len(rep.Differences)+1 || strings.Join(rows[0], ",") != strings.Join(reportCSVHeader, ",") {
			t.Errorf("csv: %d rows (%v), want %d", len(rows), err, len(rep.Differences)+1)
		}
		for _, format := range []string{"table", "html"} {
			r := runEnv(t, env{}, "migrate", "report", "--db", url, "-o", format)
			wantCode(t, r, exitOK)
			if !strings.Contains(r.stdout, sqldest.CategoryScoreLost) {
				t.Errorf("-o %s does not list score_lost: %.300s", format, r.stdout)
			}
		}
		wantCode(t, runEnv(t, env{}, "migrate", "report", "--db", url, "--fail-on-differences"), exitError)
		wantCode(t, runEnv(t, env{}, "migrate", "report", "--db", url, "--moved-at", "yesterday"), exitUsage)

		page := filepath.Join(t.TempDir(), "move.html")
		wantCode(t, runEnv(t, env{}, "migrate", "report", "--db", url, "--out", page), exitOK)
		if b, err := os.ReadFile(page); err != nil || !strings.HasPrefix(string(b), "<!DOCTYPE html>") {
			t.Errorf("--out move.html: %v %.40q", err, b)
		}

		db, _ := openTestDB(t, url)
		if _, err := db.Exec(`UPDATE edapp_export_kinds SET identities_changed = NULL`); err != nil {
			t.Fatal(err)
		}
		r = runEnv(t, env{}, "migrate", "report", "--db", url)
		wantCode(t, r, exitUsage)
		if !strings.Contains(r.stderr, "run edapp export (either source) with this version first") {
			t.Errorf("stderr %q", r.stderr)
		}
		if _, err := db.Exec(`UPDATE edapp_export_kinds SET identities_changed = FALSE`); err != nil {
			t.Fatal(err)
		}
		wantCode(t, runEnv(t, env{}, "migrate", "report", "--db", url), exitOK)
		if _, err := db.Exec(fmt.Sprintf(`DELETE FROM edapp_schema WHERE version >= %d`, dbschema.IdentityPairsVersion)); err != nil {
			t.Fatal(err)
		}
		r = runEnv(t, env{}, "migrate", "report", "--db", url)
		wantCode(t, r, exitUsage)
		if !strings.Contains(r.stderr, fmt.Sprintf("schema version %d", dbschema.IdentityPairsVersion-1)) {
			t.Errorf("stderr %q does not name the version", r.stderr)
		}
	})
}

// TestMigrateReportWarnsOfAPassword: a password in --db draws the warning
// export gives, and is never printed.
func TestMigrateReportWarnsOfAPassword(t *testing.T) {
	t.Parallel()
	r := runEnv(t, env{}, "migrate", "report", "--db", "postgres://u:s3cr3t@127.0.0.1:1/db")
	if !strings.Contains(r.stderr, "--db carries a password") || strings.Contains(r.stderr+r.stdout, "s3cr3t") {
		t.Errorf("stderr %q", r.stderr)
	}
}

// TestWriteReportTableEscapes: what the service sent cannot forge a row
// or reach the terminal as an escape sequence.
func TestWriteReportTableEscapes(t *testing.T) {
	t.Parallel()
	title := "Safety\n-  forged row\x1b[31m\u202e"
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rep := &sqldest.Report{MovedAt: &at, Differences: []sqldest.Difference{{Category: sqldest.CategoryCourseEdAppOnly, Course: &sqldest.ReportCourse{Title: &title}}},
		Courses: []sqldest.CourseReconciliation{{Title: &title}}}
	var b strings.Builder
	if err := writeReportTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "\x1b") || strings.Contains(b.String(), "\u202e") || strings.Contains(b.String(), "\n-  forged") {
		t.Errorf("a control character reached the table:\n%s", b.String())
	}
	if !strings.Contains(b.String(), `"Safety\n-  forged row\x1b[31m\u202e"`) {
		t.Errorf("the title is not shown escaped:\n%s", b.String())
	}
}

// TestFormulaSafe: a cell a spreadsheet would run is prefixed with '.
func TestFormulaSafe(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"=1+1": "'=1+1", "@x": "'@x", "-2": "'-2", "ann@x": "ann@x", "": ""} {
		if got := formulaSafe(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
