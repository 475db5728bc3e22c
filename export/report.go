package export

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The differences a migration report finds, in the order it lists them.
const (
	DiffConflict  = "identity conflict"
	DiffUnmatched = "person not matched"
	DiffCourse    = "course not matched"
	DiffMissing   = "missing after the move"
	DiffDate      = "date changed"
	DiffScoreLost = "score lost"
)

var diffOrder = []string{DiffConflict, DiffUnmatched, DiffCourse, DiffMissing, DiffDate, DiffScoreLost}

// ErrNotExported is returned by MigrationReport for a database one of the
// sources was never exported into.
var ErrNotExported = errors.New("never exported into this database")

// ReportRow is one person's completion of one course, in either service.
type ReportRow struct {
	Person         string     `json:"person"` // the email, else the id
	EdAppUserID    string     `json:"edapp_user_id,omitempty"`
	SCUserID       string     `json:"safetyculture_user_id,omitempty"`
	Course         string     `json:"course"` // the title, else the id
	EdAppCourseID  string     `json:"edapp_course_id,omitempty"`
	SCCourseID     string     `json:"safetyculture_course_id,omitempty"`
	EdAppCompleted *time.Time `json:"edapp_completed_at,omitempty"`
	SCCompleted    *time.Time `json:"safetyculture_completed_at,omitempty"`
	EdAppScore     *float64   `json:"edapp_score,omitempty"`
	SCScore        *float64   `json:"safetyculture_score,omitempty"`
	Differences    []string   `json:"differences"`
}

// Report is a migration report: totals per difference, then the rows,
// conflicts first.
type Report struct {
	Totals map[string]int `json:"totals"`
	Rows   []ReportRow    `json:"rows"`
}

// completion is one course_progress row that is complete.
type completion struct {
	user, course, email, title string
	at                         time.Time
	score                      *float64
}

// MigrationReport compares what db holds of both sources: every course
// completion in EdApp or SafetyCulture, paired through identities, and
// what differs. It reads the database only. A source never exported
// into it is an error wrapping ErrNotExported that names it.
func MigrationReport(ctx context.Context, db *sql.DB) (*Report, error) {
	if err := bothExported(ctx, db); err != nil {
		return nil, err
	}
	ids, err := readIdentityMap(ctx, db)
	if err != nil {
		return nil, err
	}
	ed, err := readCompletions(ctx, db, SourceEdApp)
	if err != nil {
		return nil, err
	}
	sc, err := readCompletions(ctx, db, SourceSafetyCulture)
	if err != nil {
		return nil, err
	}
	return compare(ids, ed, sc), nil
}

func bothExported(ctx context.Context, db *sql.DB) error {
	var missing []string
	for _, s := range []string{SourceEdApp, SourceSafetyCulture} {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM edapp_export_kinds WHERE source = '`+s+`' AND completed_at IS NOT NULL`).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: %w", strings.Join(missing, " and "), ErrNotExported)
	}
	return nil
}

// identityMap is identities: each service's id to the row.
type identityMap struct {
	byEdApp, bySC map[string]identity // keyed kind + " " + id
}

func readIdentityMap(ctx context.Context, db *sql.DB) (identityMap, error) {
	m := identityMap{map[string]identity{}, map[string]identity{}}
	rows, err := db.QueryContext(ctx, `SELECT kind, COALESCE(edapp_id, ''), COALESCE(safetyculture_id, ''), matched_by FROM identities`)
	if err != nil {
		return m, err
	}
	defer rows.Close()
	for rows.Next() {
		var r identity
		if err := rows.Scan(&r.kind, &r.edappID, &r.scID, &r.matchedBy); err != nil {
			return m, err
		}
		if r.edappID != "" {
			m.byEdApp[r.kind+" "+r.edappID] = r
		}
		if r.scID != "" {
			m.bySC[r.kind+" "+r.scID] = r
		}
	}
	return m, rows.Err()
}

func readCompletions(ctx context.Context, db *sql.DB, source string) ([]completion, error) {
	rows, err := db.QueryContext(ctx, `SELECT p.user_id, p.course_id, COALESCE(u.email, ''), COALESCE(c.title, p.course_title, ''), p.completed_date_time, p.score
FROM course_progress p LEFT JOIN users u ON u.source = p.source AND u.id = p.user_id LEFT JOIN courses c ON c.source = p.source AND c.id = p.course_id
WHERE p.source = '`+source+`' AND p.completed_date_time IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []completion
	for rows.Next() {
		var c completion
		var at any
		var score sql.NullFloat64
		if err := rows.Scan(&c.user, &c.course, &c.email, &c.title, &at, &score); err != nil {
			return nil, err
		}
		c.at = scanTime(at)
		if score.Valid {
			c.score = &score.Float64
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// compare pairs the EdApp completions with SafetyCulture's through
// identities and says what differs; SafetyCulture's completions left over
// are rows of their own.
func compare(ids identityMap, ed, sc []completion) *Report {
	scAt := map[[2]string]int{}
	for i, c := range sc {
		scAt[[2]string{c.user, c.course}] = i
	}
	paired := map[int]bool{}
	var rows []ReportRow
	for _, e := range ed {
		row := ReportRow{Person: cmp.Or(e.email, e.user), EdAppUserID: e.user, Course: cmp.Or(e.title, e.course), EdAppCourseID: e.course, EdAppCompleted: &e.at, EdAppScore: e.score}
		person, course := ids.byEdApp["person "+e.user], ids.byEdApp["course "+e.course]
		switch {
		case person.matchedBy == "conflict":
			row.Differences = []string{DiffConflict}
		case person.scID == "":
			row.Differences = []string{DiffUnmatched}
		case course.scID == "":
			row.Differences = []string{DiffCourse}
		default:
			row.SCUserID, row.SCCourseID = person.scID, course.scID
			i, ok := scAt[[2]string{person.scID, course.scID}]
			if !ok {
				row.Differences = []string{DiffMissing}
				break
			}
			paired[i] = true
			row.Differences = differences(&row, e, sc[i])
		}
		rows = append(rows, row)
	}
	for i, s := range sc {
		if !paired[i] {
			rows = append(rows, scOnlyRow(ids, s))
		}
	}
	return newReport(rows, len(ed), len(sc))
}

// differences fills row with SafetyCulture's side of a pair and says how
// it differs: the date, and a score EdApp had that did not arrive (each
// service's score on its own scale: never compared across them).
func differences(row *ReportRow, e, s completion) []string {
	row.SCCompleted, row.SCScore = &s.at, s.score
	var out []string
	if d := e.at.Sub(s.at); d > time.Second || d < -time.Second {
		out = append(out, DiffDate)
	}
	if e.score != nil && *e.score > 0 && (s.score == nil || *s.score == 0) {
		out = append(out, DiffScoreLost)
	}
	return out
}

// scOnlyRow is a SafetyCulture completion EdApp has no counterpart of:
// one after the move, or one of a person identities could not match.
func scOnlyRow(ids identityMap, s completion) ReportRow {
	row := ReportRow{Person: cmp.Or(s.email, s.user), SCUserID: s.user, Course: cmp.Or(s.title, s.course), SCCourseID: s.course, SCCompleted: &s.at, SCScore: s.score}
	switch person := ids.bySC["person "+s.user]; {
	case person.matchedBy == "conflict":
		row.Differences = []string{DiffConflict}
	case person.edappID == "":
		row.Differences = []string{DiffUnmatched}
	}
	row.EdAppUserID = ids.bySC["person "+s.user].edappID
	row.EdAppCourseID = ids.bySC["course "+s.course].edappID
	return row
}

// newReport counts the rows' differences and orders them: conflicts
// first, then by difference, person and course.
func newReport(rows []ReportRow, edapp, sc int) *Report {
	r := &Report{Totals: map[string]int{"completed in EdApp": edapp, "completed in SafetyCulture": sc, "rows": len(rows)}, Rows: rows}
	rank := func(row ReportRow) int {
		if len(row.Differences) == 0 {
			return len(diffOrder)
		}
		return slices.Index(diffOrder, row.Differences[0])
	}
	for i := range rows {
		if rows[i].Differences == nil {
			rows[i].Differences = []string{}
		}
		for _, d := range rows[i].Differences {
			r.Totals[d]++
		}
	}
	slices.SortStableFunc(rows, func(a, b ReportRow) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a.Person, b.Person), strings.Compare(a.Course, b.Course))
	})
	return r
}
