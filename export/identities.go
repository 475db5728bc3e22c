package export

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
// its external id and its second way to be matched (email or title), and
// the keys it is matched on (for a lesson, prefixed with its course).
type entity struct {
	id, ext, email    string
	extKey, secondKey string
}

// identity is one row of identities.
type identity struct {
	kind, edappID, scID, edappExt, scExt, email, matchedBy string
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
	release, err := x.hold()
	if err != nil {
		return err
	}
	defer release()
	var changed int
	err = x.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM edapp_export_kinds WHERE identities_changed IS NOT FALSE`).Scan(&changed)
	if err != nil || changed == 0 {
		return err
	}
	return RebuildIdentities(ctx, x.conn, x.d)
}

// identitiesChanged is the assignment that marks kind's row in
// edapp_export_kinds as having changed identities' inputs, for an UPDATE's
// SET list: empty unless changed is true and the kind's table is one that
// identities are built from, for the export's source (matchAll's queries).
func (x *Database) identitiesChanged(kind string, changed bool) string {
	switch {
	case !changed:
		return ""
	case kind == "users" || kind == "courses" || kind == "lessons",
		x.source == SourceSafetyCulture && (kind == "course_progress" || kind == "attempts"):
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
// edapp_export_kinds.identities_changed.
func RebuildIdentities(ctx context.Context, db TxBeginner, d Dialect) error {
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
	rows, err := matchAll(ctx, tx)
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
	got, err := tx.QueryContext(ctx, `SELECT kind, edapp_id, safetyculture_id, edapp_external_id, safetyculture_external_id, email, matched_by FROM identities`)
	if err != nil {
		return false, fmt.Errorf("export: identities: %w", err)
	}
	defer got.Close()
	n := 0
	for got.Next() {
		var kind, matchedBy string
		var edappID, scID, edappExt, scExt, email sql.NullString
		if err := got.Scan(&kind, &edappID, &scID, &edappExt, &scExt, &email, &matchedBy); err != nil {
			return false, err
		}
		r := identity{kind: kind, edappID: edappID.String, scID: scID.String, edappExt: edappExt.String, scExt: scExt.String, email: email.String, matchedBy: matchedBy}
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
func matchAll(ctx context.Context, tx *sql.Tx) ([]identity, error) {
	edPeople, err := readEntities(ctx, tx, `SELECT id, external_id, email, email FROM users WHERE source = 'edapp'`)
	if err != nil {
		return nil, err
	}
	scPeople, err := readEntities(ctx, tx, `SELECT u.id, COALESCE(
(SELECT MAX(p.user_external_id) FROM course_progress p WHERE p.source = u.source AND p.user_id = u.id AND p.user_external_id <> ''),
(SELECT MAX(a.user_external_id) FROM attempts a WHERE a.source = u.source AND a.user_id = u.id AND a.user_external_id <> '')),
u.email, u.email FROM users u WHERE u.source = 'safetyculture'`)
	if err != nil {
		return nil, err
	}
	out := match("person", "email", edPeople, scPeople)
	edCourses, err := readEntities(ctx, tx, `SELECT id, external_id, '', title FROM courses WHERE source = 'edapp'`)
	if err != nil {
		return nil, err
	}
	scCourses, err := readEntities(ctx, tx, `SELECT id, external_id, '', title FROM courses WHERE source = 'safetyculture'`)
	if err != nil {
		return nil, err
	}
	courses := match("course", "title", edCourses, scCourses)
	out = append(out, courses...)
	lessons, err := matchLessons(ctx, tx, courses)
	return append(out, lessons...), err
}

// matchLessons matches the lessons within each pair of matched courses.
func matchLessons(ctx context.Context, tx *sql.Tx, courses []identity) ([]identity, error) {
	scCourseOf := map[string]string{}
	for _, c := range courses {
		if c.edappID != "" && c.scID != "" {
			scCourseOf[c.edappID] = c.scID
		}
	}
	q := `SELECT id, external_id, course_id, title FROM lessons WHERE source = ?`
	ed, err := readEntities(ctx, tx, strings.Replace(q, "?", "'edapp'", 1))
	if err != nil {
		return nil, err
	}
	sc, err := readEntities(ctx, tx, strings.Replace(q, "?", "'safetyculture'", 1))
	if err != nil {
		return nil, err
	}
	within := func(es []entity, course func(string) string) {
		for i := range es {
			c := course(es[i].email) // readEntities put course_id there
			es[i].email = ""
			if c == "" {
				es[i].extKey, es[i].secondKey = "", ""
				continue
			}
			es[i].extKey = prefixed(c, es[i].extKey)
			es[i].secondKey = prefixed(c, es[i].secondKey)
		}
	}
	within(ed, func(id string) string { return scCourseOf[id] })
	within(sc, func(id string) string { return id })
	return match("lesson", "title", ed, sc), nil
}

func prefixed(course, key string) string {
	if key == "" {
		return ""
	}
	return course + "\x1f" + key
}

// readEntities reads (id, external id, email or course, second key) rows.
func readEntities(ctx context.Context, tx *sql.Tx, q string) ([]entity, error) {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []entity
	for rows.Next() {
		var id string
		var ext, email, second sql.NullString
		if err := rows.Scan(&id, &ext, &email, &second); err != nil {
			return nil, err
		}
		e := entity{id: id, ext: strings.TrimSpace(ext.String), email: email.String}
		e.extKey, e.secondKey = e.ext, strings.ToLower(strings.TrimSpace(second.String))
		out = append(out, e)
	}
	return out, rows.Err()
}
