package sqldest

import (
	"context"
	"database/sql"
	"time"
)

// reportInput is what the report reads: identities, names and completions.
type reportInput struct {
	people, courses []pairRow
	edapp, sc       []completion
	movedAt         time.Time
}

// pairRow is one person or course of identities, with what each service
// holds of it.
type pairRow struct {
	edappID, scID, edappHeld, scHeld, edappExt, scExt, matchedBy string
	first, last                                                  string // a person's names: EdApp's, else SafetyCulture's
	scFirst, scLast                                              string
	edappLeft, scLeft                                            bool // a person gone from that service's users
}

// completion is one course_progress row that is complete.
type completion struct {
	user, course string
	at           time.Time
	score        *float64
}

// readReportInput reads what the report needs. With history (a database
// at dbschema.HistoryVersion or later), a person who left a service keeps
// the names of their last version in users_history, and their completions
// the last version in course_progress_history of each course_progress row
// a complete walk deleted.
func readReportInput(ctx context.Context, db Querier, cfg reportConfig, history bool) (reportInput, error) {
	var in reportInput
	var err error
	if in.people, err = readPairs(ctx, db, peopleQuery(history)); err != nil {
		return in, err
	}
	if in.courses, err = readPairs(ctx, db, `SELECT edapp_id, safetyculture_id, edapp_title, safetyculture_title, edapp_external_id,
safetyculture_external_id, matched_by, '', '', '', '', FALSE, FALSE FROM identities WHERE kind = 'course' ORDER BY id`); err != nil {
		return in, err
	}
	if in.edapp, err = readCompletions(ctx, db, SourceEdApp, history); err != nil {
		return in, err
	}
	if in.sc, err = readCompletions(ctx, db, SourceSafetyCulture, history); err != nil {
		return in, err
	}
	in.movedAt = cfg.movedAt
	if in.movedAt.IsZero() {
		in.movedAt, err = latestEdAppActivity(ctx, db)
	}
	return in, err
}

// peopleQuery reads the people of identities with their names: from
// users, else (with history) from the last version of a leaver in
// users_history.
func peopleQuery(history bool) string {
	const pairs = `SELECT i.edapp_id, i.safetyculture_id, i.edapp_email, i.safetyculture_email, i.edapp_external_id,
i.safetyculture_external_id, i.matched_by, `
	const users = `FROM identities i LEFT JOIN users eu ON eu.source = 'edapp' AND eu.id = i.edapp_id
LEFT JOIN users su ON su.source = 'safetyculture' AND su.id = i.safetyculture_id`
	const order = ` WHERE i.kind = 'person' ORDER BY i.id`
	if !history {
		return pairs + `eu.first_name, eu.last_name, su.first_name, su.last_name, FALSE, FALSE ` + users + order
	}
	last := func(h, source, left string) string {
		return `
LEFT JOIN users_history ` + h + ` ON i.` + left + ` AND ` + h + `.source = '` + source + `' AND ` + h + `.id = i.` + source + `_id
AND NOT EXISTS (SELECT 1 FROM users_history later WHERE later.source = ` + h + `.source AND later.id = ` + h + `.id AND later.valid_from > ` + h + `.valid_from)`
	}
	return pairs + `COALESCE(eu.first_name, eh.first_name), COALESCE(eu.last_name, eh.last_name),
COALESCE(su.first_name, sh.first_name), COALESCE(su.last_name, sh.last_name), i.edapp_left, i.safetyculture_left ` +
		users + last("eh", SourceEdApp, "edapp_left") + last("sh", SourceSafetyCulture, "safetyculture_left") + order
}

func readPairs(ctx context.Context, db Querier, q string) ([]pairRow, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pairRow
	for rows.Next() {
		var v [11]sql.NullString
		var edappLeft, scLeft sql.NullBool
		if err := rows.Scan(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &edappLeft, &scLeft); err != nil {
			return nil, err
		}
		out = append(out, pairRow{edappID: v[0].String, scID: v[1].String, edappHeld: v[2].String, scHeld: v[3].String,
			edappExt: v[4].String, scExt: v[5].String, matchedBy: v[6].String, first: v[7].String, last: v[8].String,
			scFirst: v[9].String, scLast: v[10].String, edappLeft: edappLeft.Bool, scLeft: scLeft.Bool})
	}
	return out, rows.Err()
}

// readCompletions reads source's completed courses: course_progress's,
// and (with history) a leaver's whose row a complete walk deleted, as
// its last version in course_progress_history holds it.
func readCompletions(ctx context.Context, db Querier, source string, history bool) ([]completion, error) {
	q := `SELECT user_id, course_id, completed_date_time, score FROM course_progress
WHERE source = '` + source + `' AND completed_date_time IS NOT NULL`
	if history {
		q += `
UNION ALL SELECT h.user_id, h.course_id, h.completed_date_time, h.score FROM course_progress_history h
WHERE h.source = '` + source + `' AND h.completed_date_time IS NOT NULL
AND NOT EXISTS (SELECT 1 FROM course_progress_history later WHERE later.source = h.source AND later.user_id = h.user_id
AND later.course_id = h.course_id AND later.valid_from > h.valid_from)
AND NOT EXISTS (SELECT 1 FROM course_progress p WHERE p.source = h.source AND p.user_id = h.user_id AND p.course_id = h.course_id)
AND EXISTS (SELECT 1 FROM identities i WHERE i.kind = 'person' AND i.` + source + `_id = h.user_id AND i.` + source + `_left)`
	}
	rows, err := db.QueryContext(ctx, q+` ORDER BY user_id, course_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []completion
	for rows.Next() {
		var c completion
		var at any
		var score sql.NullFloat64
		if err := rows.Scan(&c.user, &c.course, &at, &score); err != nil {
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

// latestEdAppActivity is the latest time an EdApp learner opened or
// completed a course or a lesson attempt; zero when there is none.
func latestEdAppActivity(ctx context.Context, db Querier) (time.Time, error) {
	var latest time.Time
	for _, q := range []string{
		`SELECT MAX(completed_date_time) FROM course_progress WHERE source = 'edapp'`,
		`SELECT MAX(opened_date_time) FROM course_progress WHERE source = 'edapp'`,
		`SELECT MAX(completed_date_time) FROM attempts WHERE source = 'edapp'`,
		`SELECT MAX(started_date_time) FROM attempts WHERE source = 'edapp'`,
	} {
		var v any
		if err := db.QueryRowContext(ctx, q).Scan(&v); err != nil {
			return latest, err
		}
		if t := scanTime(v); t.After(latest) {
			latest = t
		}
	}
	return latest, nil
}
