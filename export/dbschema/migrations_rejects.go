package dbschema

import "strconv"

// Migration 19: rejects keeps one row per refused record, keyed by
// (source, kind, record_key), with how many runs refused it, the last
// run, and a bounded body: a record refused on every run no longer adds
// a row, with its whole body, each time. The rows kept before are folded
// into one per record with an identity, the latest kept and counted;
// those without one keep their own row each.

// rejectsByRecordVersion is the schema version from which rejects holds
// one row per record.
const rejectsByRecordVersion = 19

var rejectsByRecordTable = Table{Name: "rejects", Description: "One row per record a database or the writer refused, kept instead of blocking its kind: a record refused again updates its row, one accepted later removes it.", Key: []string{"id"},
	Indexes: []Index{{Columns: []string{"source", "kind", "record_key"}, Unique: true}},
	Columns: []Column{
		{Name: "id", Type: Serial, Origin: FromEngine, Description: "The reject's number, in the order first rejected."},
		{Name: "source", Type: Text, Origin: FromEngine, Description: "The service the record came from: edapp or safetyculture."},
		{Name: "kind", Type: Text, Origin: FromEngine, Description: "The kind of record: the table it was for (events for a webhook delivery)."},
		{Name: "record_key", Type: Text, Origin: FromEngine, Description: "What makes one row per record, with source and kind: its identity when it has one of at most 512 characters, else 'sha256:' and the hex SHA-256 of its identity or, with none, of the record as sent; 'id:' and the row's number for a record rejected before schema version " + strconv.Itoa(rejectsByRecordVersion) + " without such an identity."},
		{Name: "identity", Type: Text, Origin: FromEngine, Nullable: true, Description: "The record's identity, its key columns' values joined by ' / '; NULL when it has none usable."},
		{Name: "reason", Type: Text, Origin: FromEngine, Description: "Why it was last refused: the database's message or the rule it broke."},
		{Name: "raw", Type: JSON, Origin: FromEngine, Nullable: true, Description: "The record or delivery as the service last sent it; one over 64 KiB (see raw_bytes) as a JSON string of its first bytes, at most 64 KiB in all."},
		{Name: "raw_bytes", Type: Int, Origin: FromEngine, Nullable: true, Unit: "bytes", Description: "The size of the record as sent, before the bound on raw; NULL for a reject kept before schema version " + strconv.Itoa(rejectsByRecordVersion) + "."},
		{Name: "count", Type: Int, Origin: FromEngine, Description: "How many export runs refused the record (for a webhook delivery: how many deliveries)."},
		{Name: "run", Type: Int, Origin: FromEngine, Nullable: true, Description: "The export run that last refused it; NULL for a webhook delivery."},
		{Name: "first_rejected_at", Type: Time, Origin: FromEngine, Description: "When it was first refused."},
		{Name: "rejected_at", Type: Time, Origin: FromEngine, Description: "When it was last refused."},
	},
}

// keyedOld is the rows kept before that are keyed by their identity.
const keyedOld = `identity IS NOT NULL AND length(identity) <= 512`

// sameRecord matches a row o of rejects to the row being updated.
const sameRecord = `o.source = rejects.source AND o.kind = rejects.kind AND o.identity = rejects.identity`

func rejectsByRecordSteps() []step {
	return []step{
		addColumn{"rejects", Column{Name: "count", Type: Int, Origin: FromEngine, Nullable: true}},
		addColumn{"rejects", Column{Name: "first_rejected_at", Type: Time, Origin: FromEngine, Nullable: true}},
		execSQL{Statements: []string{
			`UPDATE rejects SET count = (SELECT COUNT(*) FROM rejects o WHERE ` + sameRecord + `),
first_rejected_at = (SELECT MIN(o.rejected_at) FROM rejects o WHERE ` + sameRecord + `) WHERE ` + keyedOld,
			`DELETE FROM rejects WHERE ` + keyedOld + ` AND id < (SELECT MAX(o.id) FROM rejects o WHERE ` + sameRecord + `)`,
		}},
		rebuildTable{Table: rejectsByRecordTable, Copy: []string{"source", "kind", "identity", "reason", "raw", "run", "rejected_at"},
			Fill: map[string]string{
				"record_key":        `CASE WHEN ` + keyedOld + ` THEN identity ELSE 'id:' || CAST(id AS TEXT) END`,
				"count":             `COALESCE(count, 1)`,
				"first_rejected_at": `COALESCE(first_rejected_at, rejected_at)`,
			}},
	}
}
