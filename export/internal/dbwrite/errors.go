package dbwrite

import (
	"errors"
	"strings"
)

// IsDataError reports whether err is a database refusing a row for what it
// holds, which the same row will meet again on every try: on PostgreSQL
// SQLSTATE class 22 (data exception), class 23 (integrity constraint) but
// 23505 (a unique key taken, which an upsert settles) and 54000 (a value
// over a limit, such as an index entry's size); on SQLite a constraint
// that is not a key's, a type mismatch, or a value too big. A lost
// connection, a timeout or a lock is not one.
func IsDataError(err error) bool {
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		s := pg.SQLState()
		return strings.HasPrefix(s, "22") || strings.HasPrefix(s, "23") && s != "23505" || s == "54000"
	}
	var lite interface{ Code() int }
	if errors.As(err, &lite) {
		const constraint, mismatch, tooBig, primaryKey, unique = 19, 20, 18, 1555, 2067
		switch c := lite.Code(); c & 0xff {
		case constraint:
			return c != primaryKey && c != unique
		case mismatch, tooBig:
			return true
		}
	}
	return false
}

// IsOutOfSpace reports whether err is the database being out of room for
// now (a full disk, or another resource it runs short of), which the same
// write may get past later: SQLite's SQLITE_FULL or SQLITE_IOERR,
// PostgreSQL's class 53 (insufficient resources, disk_full among them).
func IsOutOfSpace(err error) bool {
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		return strings.HasPrefix(pg.SQLState(), "53")
	}
	var lite interface{ Code() int }
	if errors.As(err, &lite) {
		const ioErr, full = 10, 13
		c := lite.Code() & 0xff
		return c == full || c == ioErr
	}
	return false
}

// SQLiteBusy reports whether err is SQLite's SQLITE_BUSY, extended codes
// included: another connection holds the lock it needed. It knows the
// drivers that give their errors a Code() int method (modernc.org/sqlite).
func SQLiteBusy(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == 5
}
