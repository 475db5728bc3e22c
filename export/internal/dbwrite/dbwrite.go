// Package dbwrite is what the SQL destination and the webhook inbox both
// need to write rows into a database of the dbschema schema: the values
// each dialect can hold (CleanArgs), the errors that tell a row refused
// for good from a database that is busy or full (IsDataError,
// IsOutOfSpace, SQLiteBusy), placeholders per dialect (Rebind), the
// bounds on keys and indexed values, and the rejects table
// (InsertRejects, ClearRejects).
package dbwrite

import (
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/internal/placeholder"
)

// TimeLayout is how a time is written on SQLite: ISO 8601 in UTC with
// microseconds, so that text order is time order (dbschema.Time).
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// MaxKeyBytes bounds the bytes of a record's key columns together: a
// record whose key is longer is rejected, never truncated. PostgreSQL's
// B-tree (a primary key is one) refuses an entry over 2,704 bytes.
const MaxKeyBytes = 2000

// MaxIndexedBytes bounds a text value in a column with a secondary index:
// the export stores NULL for a longer one, which the record's raw column
// still holds. PostgreSQL's B-tree refuses an entry over 2,704 bytes
// (schema version 12 made the export's indexes B-trees).
const MaxIndexedBytes = 2000

// MaxRejectRawBytes bounds a reject's raw column: a record whose body is
// larger is kept as a JSON string of its first bytes, at most this many
// in all, and raw_bytes says how large it was.
const MaxRejectRawBytes = 64 << 10

// maxKeyedIdentity is the most characters of an identity record_key
// holds as it is; a longer one is keyed by its digest, which keeps the
// key's index entry within PostgreSQL's bound (schema version 19).
const maxKeyedIdentity = 512

// Rebind rewrites the ? placeholders of query as $1, $2, ... for
// PostgreSQL; SQLite takes ? as it is. The query must hold no ? in a
// literal.
func Rebind(d dbschema.Dialect, query string) string {
	if d != dbschema.Postgres {
		return query
	}
	return placeholder.Numbered(query)
}
