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
}

// completion is one course_progress row that is complete.
type completion struct {
	user, course string
	at           time.Time
	score        *float64
}

func readReportInput(ctx context.Context, db Querier, cfg reportConfig) (reportInput, error) {
	var in reportInput
	var err error
	if in.people, err = readPairs(ctx, db, `SELECT i.edapp_id, i.safetyculture_id, i.edapp_email, i.safetyculture_email, i.edapp_external_id,
i.safetyculture_external_id, i.matched_by, eu.first_name, eu.last_name, su.first_name, su.last_name
FROM identities i LEFT JOIN users eu ON eu.source = 'edapp' AND eu.id = i.edapp_id
LEFT JOIN users su ON su.source = 'safetyculture' AND su.id = i.safetyculture_id
WHERE i.kind = 'person' ORDER BY i.id`); err != nil {
		return in, err
	}
	if in.courses, err = readPairs(ctx, db, `SELECT edapp_id, safetyculture_id, edapp_title, safetyculture_title, edapp_external_id,
safetyculture_external_id, matched_by, '', '', '', '' FROM identities WHERE kind = 'course' ORDER BY id`); err != nil {
		return in, err
	}
	if in.edapp, err = readCompletions(ctx, db, SourceEdApp); err != nil {
		return in, err
	}
	if in.sc, err = readCompletions(ctx, db, SourceSafetyCulture); err != nil {
		return in, err
	}
	in.movedAt = cfg.movedAt
	if in.movedAt.IsZero() {
		in.movedAt, err = latestEdAppActivity(ctx, db)
	}
	return in, err
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
		if err := rows.Scan(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10]); err != nil {
			return nil, err
		}
		out = append(out, pairRow{edappID: v[0].String, scID: v[1].String, edappHeld: v[2].String, scHeld: v[3].String,
			edappExt: v[4].String, scExt: v[5].String, matchedBy: v[6].String, first: v[7].String, last: v[8].String,
			scFirst: v[9].String, scLast: v[10].String})
	}
	return out, rows.Err()
}

func readCompletions(ctx context.Context, db Querier, source string) ([]completion, error) {
	rows, err := db.QueryContext(ctx, `SELECT user_id, course_id, completed_date_time, score FROM course_progress
WHERE source = '`+source+`' AND completed_date_time IS NOT NULL ORDER BY user_id, course_id`)
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
