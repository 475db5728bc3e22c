package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/edapp-go/edapp/export/sqldest"
)

// writeReportTable prints the totals, the per-course reconciliation, then
// the differences, one a line.
func writeReportTable(w io.Writer, r *sqldest.Report) error {
	fmt.Fprintf(w, "moved at %s\n\n", orDash(timeCell(r.MovedAt)))
	if err := writeTable(w, []string{"TOTAL", "COUNT"}, totalsRows(r.Totals)); err != nil {
		return err
	}
	fmt.Fprintln(w)
	courses := make([][]string, len(r.Courses))
	for i, c := range r.Courses {
		courses[i] = []string{orDash(str(c.Title)), strconv.Itoa(c.EdAppCompletions), strconv.Itoa(c.Carried), strconv.Itoa(c.Missing), strconv.Itoa(c.SafetyCultureCompletions)}
	}
	if err := writeTable(w, []string{"COURSE", "EDAPP", "CARRIED", "MISSING", "SAFETYCULTURE"}, courses); err != nil {
		return err
	}
	fmt.Fprintln(w)
	rows := make([][]string, len(r.Differences))
	for i, d := range r.Differences {
		c := diffCells(d)
		rows[i] = []string{d.Category, orDash(c.cause), orDash(c.person), orDash(c.course), orDash(c.edapp), orDash(c.sc)}
	}
	return writeTable(w, []string{"CATEGORY", "CAUSE", "PERSON", "COURSE", "EDAPP", "SAFETYCULTURE"}, rows)
}

// totalsRows are the report's totals as "group.count" rows, in the JSON's
// order.
func totalsRows(t sqldest.ReportTotals) [][]string {
	p, c, k := t.People, t.Courses, t.Completions
	row := func(name string, n int) []string { return []string{name, strconv.Itoa(n)} }
	return [][]string{
		row("people.matched", p.Matched), row("people.email_changed", p.EmailChanged), row("people.edapp_only", p.EdAppOnly),
		row("people.safetyculture_only", p.SafetyCultureOnly), row("people.identity_conflict", p.IdentityConflict),
		row("people.probable_same_person", p.ProbableSamePerson),
		row("courses.matched", c.Matched), row("courses.matched_by_title", c.MatchedByTitle), row("courses.edapp_only", c.EdAppOnly),
		row("courses.safetyculture_only", c.SafetyCultureOnly), row("courses.identity_conflict", c.IdentityConflict),
		row("completions.edapp", k.EdApp), row("completions.carried", k.Carried), row("completions.missing", k.Missing),
		row("completions.date_changed", k.DateChanged), row("completions.score_lost", k.ScoreLost),
		row("completions.completed_after_move", k.CompletedAfterMove), row("completions.safetyculture_only", k.SafetyCultureOnly),
	}
}

// diffText is a difference's person, course and completions as text.
type diffText struct{ cause, person, course, edapp, sc string }

func diffCells(d sqldest.Difference) diffText {
	t := diffText{cause: str(d.Cause)}
	if p := d.Person; p != nil {
		t.person = firstOf(p.EdAppEmail, p.SafetyCultureEmail, p.EdAppID, p.SafetyCultureID)
		if e, s := str(p.EdAppEmail), str(p.SafetyCultureEmail); e != "" && s != "" && e != s {
			t.person = e + " -> " + s
		}
	}
	if c := d.Course; c != nil {
		t.course = firstOf(c.Title, c.EdAppID, c.SafetyCultureID)
	}
	t.edapp, t.sc = progressText(d.EdApp), progressText(d.SafetyCulture)
	return t
}

func progressText(p *sqldest.ReportProgress) string {
	if p == nil {
		return ""
	}
	s := timeCell(p.CompletedAt)
	if p.Score != nil {
		s += " score " + strconv.FormatFloat(*p.Score, 'f', -1, 64)
	}
	return s
}

// reportCSVHeader is the CSV's columns: a difference flattened, as its
// JSON names it.
var reportCSVHeader = []string{"category", "cause",
	"person.edapp_id", "person.safetyculture_id", "person.edapp_email", "person.safetyculture_email", "person.first_name", "person.last_name",
	"course.edapp_id", "course.safetyculture_id", "course.title", "course.edapp_external_id", "course.safetyculture_external_id",
	"edapp.completed_at", "edapp.score", "safetyculture.completed_at", "safetyculture.score"}

// writeReportCSV writes one row per difference; an unknown value is an
// empty cell, and a text cell a spreadsheet would run as a formula is
// prefixed with '.
func writeReportCSV(w io.Writer, r *sqldest.Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(reportCSVHeader); err != nil {
		return err
	}
	for _, d := range r.Differences {
		row := []string{d.Category, str(d.Cause)}
		p, c := d.Person, d.Course
		if p == nil {
			p = &sqldest.ReportPerson{}
		}
		if c == nil {
			c = &sqldest.ReportCourse{}
		}
		row = append(row, str(p.EdAppID), str(p.SafetyCultureID), str(p.EdAppEmail), str(p.SafetyCultureEmail), str(p.FirstName), str(p.LastName),
			str(c.EdAppID), str(c.SafetyCultureID), str(c.Title), str(c.EdAppExternalID), str(c.SafetyCultureExternalID))
		for _, pr := range []*sqldest.ReportProgress{d.EdApp, d.SafetyCulture} {
			at, score := "", ""
			if pr != nil {
				at = timeCell(pr.CompletedAt)
				if pr.Score != nil {
					score = strconv.FormatFloat(*pr.Score, 'f', -1, 64)
				}
			}
			row = append(row, at, score)
		}
		for i := range row {
			row[i] = formulaSafe(row[i])
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// formulaSafe prefixes with ' a cell a spreadsheet would run as a formula
// (it begins with =, +, -, @, a tab or a carriage return), as OWASP
// advises. No cell of the report is a number that may be negative.
func formulaSafe(s string) string {
	if s != "" && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r') {
		return "'" + s
	}
	return s
}

func timeCell(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func firstOf(ss ...*string) string {
	for _, s := range ss {
		if str(s) != "" {
			return *s
		}
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
