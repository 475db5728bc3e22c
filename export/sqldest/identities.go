package sqldest

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// identitiesLockKey is the PostgreSQL advisory lock a rebuild of
// identities holds for its transaction ("edapp-id"); on SQLite its first
// statement, a write, takes the database's write lock.
const identitiesLockKey = 0x65646170702d6964

// entity is a person, course or lesson as one source holds it: its id,
// its external id, its second way to be matched as held (email or title)
// and the keys it is matched on (for a lesson, prefixed with its course).
type entity struct {
	id, ext, held string
	extKey        string
	// secondKey is what a candidate of the other side must share
	// (an email's look key); sameKey and risky tell a candidate that is
	// the same from one that only looks alike (keysOfEmail). A title's
	// three keys are one.
	secondKey, sameKey, rawKey string
	risky                      bool
	left                       bool // a person gone from users, found in users_history
}

// identity is one row of identities.
type identity struct {
	kind, edappID, scID, edappExt, scExt, email, matchedBy string
	edappHeld, scHeld                                      string // each side's email (a person) or title
	edappLeft, scLeft                                      bool   // a person gone from that side's users
}

// TxBeginner begins transactions: a *sql.DB or a *sql.Conn.
type TxBeginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// RebuildIdentities rebuilds identities (see the function of that name) on
// the export's connection, unless no export changed what they are built
// from since their last rebuild: each kind records, in the transaction
// that changed its rows, that it did (edapp_export_kinds.identities_changed).
// A change made to those tables by hand goes unseen: call the function
// RebuildIdentities then.
func (x *Database) RebuildIdentities(ctx context.Context) error {
	release, err := x.own.hold()
	if err != nil {
		return err
	}
	defer release()
	var changed int
	err = x.own.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM edapp_export_kinds WHERE identities_changed IS NOT FALSE`).Scan(&changed)
	if err != nil || changed == 0 {
		return err
	}
	return rebuildIdentities(ctx, x.own.conn, x.d, x.nfc)
}

// identitiesChanged is the assignment that marks kind's row in
// edapp_export_kinds as having changed identities' inputs, for an UPDATE's
// SET list: empty unless changed is true and the kind's table is one that
// identities are built from, for source (matchAll's queries).
func identitiesChanged(source, kind string, changed bool) string {
	switch {
	case !changed:
		return ""
	case kind == "users" || kind == "courses" || kind == "lessons",
		source == SourceSafetyCulture && (kind == "course_progress" || kind == "attempts"):
		return ", identities_changed = TRUE"
	}
	return ""
}

// RebuildIdentities refills the table identities from what db holds of
// both sources, in one transaction under a database-wide lock: people by
// external id (SafetyCulture's from its course-progress rows), else email;
// courses by external id, else title; lessons by their matched course and
// external id, else title. Two ways that disagree, or several candidates,
// make a conflict, never a guess. When the table already holds exactly
// the rows it would write (a re-run that changed no one), it writes
// nothing, and the rows keep their ids. It clears every kind's
// edapp_export_kinds.identities_changed. Emails match in NFC with ASCII
// letters folded to lower case: two that differ otherwise but look alike
// once every letter is folded (a Kelvin sign K for a K) are a conflict.
// Of opts, only WithNormalizer applies (without it, no NFC).
func RebuildIdentities(ctx context.Context, db TxBeginner, d Dialect, opts ...DatabaseOption) error {
	x := &Database{nfc: asHeld}
	applyOptions(x, opts)
	if x.optErr != nil {
		return x.optErr
	}
	return rebuildIdentities(ctx, db, d, x.nfc)
}

func rebuildIdentities(ctx context.Context, db TxBeginner, d Dialect, nfc Normalizer) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := lockIdentities(ctx, tx, d); err != nil {
		return err
	}
	// Cleared first: a kind whose rows change while this rebuild reads (an
	// export of the other source, on PostgreSQL) marks its row after this
	// statement, waiting for this transaction if the row was marked
	// before, so that the next rebuild sees the change.
	if _, err := tx.ExecContext(ctx, `UPDATE edapp_export_kinds SET identities_changed = FALSE WHERE identities_changed IS NOT FALSE`); err != nil {
		return fmt.Errorf("export: identities: %w", err)
	}
	rows, err := matchAll(ctx, tx, nfc)
	if err != nil {
		return fmt.Errorf("export: identities: %w", err)
	}
	same, err := identitiesHold(ctx, tx, rows)
	if err != nil || same {
		return cmp.Or(err, tx.Commit())
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM identities`); err != nil {
		return fmt.Errorf("export: identities: %w", err)
	}
	if err := insertIdentities(ctx, tx, d, rows); err != nil {
		return fmt.Errorf("export: identities: %w", err)
	}
	return tx.Commit()
}

// lockIdentities takes, for tx, the lock a rebuild holds: on PostgreSQL
// identitiesLockKey; on SQLite the database's write lock, which a write
// takes even when it changes nothing (so that a transaction begun
// deferred cannot fail to upgrade after its reads).
func lockIdentities(ctx context.Context, tx *sql.Tx, d Dialect) error {
	var err error
	if d == Postgres {
		_, err = tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(identitiesLockKey))
	} else {
		_, err = tx.ExecContext(ctx, `DELETE FROM identities WHERE 0 = 1`)
	}
	return err
}

// identitiesHold reports whether the table holds exactly rows, in any
// order.
func identitiesHold(ctx context.Context, tx *sql.Tx, rows []identity) (bool, error) {
	want := map[identity]int{}
	for _, r := range rows {
		want[r]++
	}
	got, err := tx.QueryContext(ctx, `SELECT kind, edapp_id, safetyculture_id, edapp_external_id, safetyculture_external_id, email, matched_by,
COALESCE(edapp_email, edapp_title), COALESCE(safetyculture_email, safetyculture_title), edapp_left, safetyculture_left FROM identities`)
	if err != nil {
		return false, fmt.Errorf("export: identities: %w", err)
	}
	defer got.Close()
	n := 0
	for got.Next() {
		var kind, matchedBy string
		var edappID, scID, edappExt, scExt, email, edappHeld, scHeld sql.NullString
		var edappLeft, scLeft sql.NullBool
		if err := got.Scan(&kind, &edappID, &scID, &edappExt, &scExt, &email, &matchedBy, &edappHeld, &scHeld, &edappLeft, &scLeft); err != nil {
			return false, err
		}
		r := identity{kind: kind, edappID: edappID.String, scID: scID.String, edappExt: edappExt.String, scExt: scExt.String,
			email: email.String, matchedBy: matchedBy, edappHeld: edappHeld.String, scHeld: scHeld.String, edappLeft: edappLeft.Bool, scLeft: scLeft.Bool}
		if want[r] == 0 {
			return false, nil
		}
		want[r]--
		n++
	}
	return n == len(rows), got.Err()
}

// matchAll matches the people, the courses, then the lessons (whose keys
// need the courses matched).
func matchAll(ctx context.Context, tx *sql.Tx, nfc Normalizer) ([]identity, error) {
	people := func(e *entity) { emailEntity(e, nfc) }
	edPeople, err := readEntities(ctx, tx, `SELECT id, external_id, '', email FROM users WHERE source = 'edapp'
UNION ALL SELECT h.id, h.external_id, '`+leftMark+`', h.email FROM users_history h WHERE h.source = 'edapp'`+leaver, people)
	if err != nil {
		return nil, err
	}
	scPeople, err := readEntities(ctx, tx, `SELECT u.id, COALESCE(
(SELECT MAX(p.user_external_id) FROM course_progress p WHERE p.source = u.source AND p.user_id = u.id AND p.user_external_id <> ''),
(SELECT MAX(a.user_external_id) FROM attempts a WHERE a.source = u.source AND a.user_id = u.id AND a.user_external_id <> '')),
'', u.email FROM users u WHERE u.source = 'safetyculture'
UNION ALL SELECT h.id, COALESCE(
(SELECT MAX(p.user_external_id) FROM course_progress_history p WHERE p.source = h.source AND p.user_id = h.id AND p.user_external_id <> ''),
(SELECT MAX(a.user_external_id) FROM attempts a WHERE a.source = h.source AND a.user_id = h.id AND a.user_external_id <> '')),
'`+leftMark+`', h.email FROM users_history h WHERE h.source = 'safetyculture'`+leaver, people)
	if err != nil {
		return nil, err
	}
	out := match("person", "email", edPeople, scPeople)
	edCourses, err := readEntities(ctx, tx, `SELECT id, external_id, '', title FROM courses WHERE source = 'edapp'`, titleEntity)
	if err != nil {
		return nil, err
	}
	scCourses, err := readEntities(ctx, tx, `SELECT id, external_id, '', title FROM courses WHERE source = 'safetyculture'`, titleEntity)
	if err != nil {
		return nil, err
	}
	courses := match("course", "title", edCourses, scCourses)
	out = append(out, courses...)
	lessons, err := matchLessons(ctx, tx, courses)
	return append(out, lessons...), err
}

// The people who left a source are the latest versions of users_history
// whose key users no longer holds: a person stays matched, and findable,
// after the service deleted them. Their rows carry leftMark where a
// lesson's carry its course.
const (
	leftMark = "left"
	leaver   = ` AND h.valid_to IS NOT NULL AND NOT EXISTS (SELECT 1 FROM users u WHERE u.source = h.source AND u.id = h.id)
AND NOT EXISTS (SELECT 1 FROM users_history later WHERE later.source = h.source AND later.id = h.id AND later.valid_from > h.valid_from)`
)

// emailEntity sets e's keys from its email (keysOfEmail).
func emailEntity(e *entity, nfc Normalizer) {
	k := keysOfEmail(e.held, nfc)
	e.secondKey, e.sameKey, e.rawKey, e.risky = k.look, k.match, asciiLower(strings.TrimSpace(e.held)), k.risky
}

// titleEntity sets e's keys from its title: trimmed and in lower case.
func titleEntity(e *entity) {
	k := strings.ToLower(strings.TrimSpace(e.held))
	e.secondKey, e.sameKey, e.rawKey = k, k, k
}

// matchLessons matches the lessons within each pair of matched courses.
func matchLessons(ctx context.Context, tx *sql.Tx, courses []identity) ([]identity, error) {
	scCourseOf := map[string]string{}
	for _, c := range courses {
		if c.edappID != "" && c.scID != "" {
			scCourseOf[c.edappID] = c.scID
		}
	}
	within := func(course func(string) string) func(*entity, string) {
		return func(e *entity, courseID string) {
			titleEntity(e)
			c := course(courseID)
			e.extKey, e.secondKey = prefixed(c, e.extKey), prefixed(c, e.secondKey)
			e.sameKey, e.rawKey = e.secondKey, e.secondKey
		}
	}
	q := `SELECT id, external_id, course_id, title FROM lessons WHERE source = ?`
	ed, err := readLessons(ctx, tx, strings.Replace(q, "?", "'edapp'", 1), within(func(id string) string { return scCourseOf[id] }))
	if err != nil {
		return nil, err
	}
	sc, err := readLessons(ctx, tx, strings.Replace(q, "?", "'safetyculture'", 1), within(func(id string) string { return id }))
	if err != nil {
		return nil, err
	}
	return match("lesson", "title", ed, sc), nil
}

// prefixed is key within course; "" when either is.
func prefixed(course, key string) string {
	if key == "" || course == "" {
		return ""
	}
	return course + "\x1f" + key
}

// readEntities reads (id, external id, course, second way) rows, keyed
// by keys.
func readEntities(ctx context.Context, tx *sql.Tx, q string, keys func(*entity)) ([]entity, error) {
	return readLessons(ctx, tx, q, func(e *entity, _ string) { keys(e) })
}

// readLessons is readEntities whose keys need the row's course.
func readLessons(ctx context.Context, tx *sql.Tx, q string, keys func(e *entity, course string)) ([]entity, error) {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []entity
	for rows.Next() {
		var id string
		var ext, course, second sql.NullString
		if err := rows.Scan(&id, &ext, &course, &second); err != nil {
			return nil, err
		}
		e := entity{id: id, ext: strings.TrimSpace(ext.String), held: second.String, left: course.String == leftMark}
		e.extKey = e.ext
		keys(&e, course.String)
		out = append(out, e)
	}
	return out, rows.Err()
}
