package sqldest

import (
	"context"
	"database/sql"

	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/edappsrc"
	"github.com/edapp-go/edapp/export/scsrc"
)

// The kinds of a run start one after another on the export's connection,
// each before its first request. Each start used to read its kind's walk,
// ask each of its tables for a row (to insert into an empty one without a
// conflict clause), and delete the keys an older walk had seen, in a
// transaction of its own: 7 to 10 round trips a kind, while the other
// kinds' first pages arrive. Now the first Resume reads the walks and the
// seen keys of every kind of the source at once (readStarts), and a
// re-run's Begin records the walk with one statement. Its tables hold what
// the last complete fetch wrote, so its writes upsert without asking. Each
// round trip saved is one that a network between the export and the
// server no longer adds to a re-run (docs/bench/database-writer.md).

// kindStart is what a kind's start needs to know of the database.
type kindStart struct {
	walk   walkState
	forget bool // the kind's tables have keys of an older walk in edapp_export_seen
}

// startOf is the kind's start, read with every other kind's of the source
// by the first call, or by the first call after the kind's last start (a
// second run on the Database). Only the kind's own walk changes what it
// says, so reading it early gives what reading it at the start would.
func (x *Database) startOf(ctx context.Context, kind string) (kindStart, error) {
	if s, ok := x.starts[kind]; ok {
		delete(x.starts, kind)
		return s, nil
	}
	starts, err := startReader{x.own.conn, x.d, x.source}.readStarts(ctx, kind)
	if err != nil {
		return kindStart{}, err
	}
	s := starts[kind]
	delete(starts, kind)
	x.starts = starts
	return s, nil
}

// startReader reads the kinds' starts of a source on a connection: two
// queries for all of them.
type startReader struct {
	conn   *sql.Conn
	d      Dialect
	source string
}

// readStarts reads the start of each kind of the source, and of kind:
// two queries.
func (r startReader) readStarts(ctx context.Context, kind string) (map[string]kindStart, error) {
	all := func(export.Kind) bool { return true }
	of := export.KindNames(edappsrc.Kinds(), all)
	if r.source == SourceSafetyCulture {
		of = export.KindNames(scsrc.Kinds(), all)
	}
	starts := map[string]kindStart{kind: {}}
	for _, name := range of {
		starts[name] = kindStart{}
	}
	if err := r.readWalks(ctx, starts); err != nil {
		return nil, err
	}
	seen, err := r.seenTables(ctx)
	if err != nil {
		return nil, err
	}
	for name, s := range starts {
		for _, t := range loadTables(name) {
			s.forget = s.forget || seen[t]
		}
		starts[name] = s
	}
	return starts, nil
}

// readWalks reads each kind's row of edapp_export_kinds into starts.
func (r startReader) readWalks(ctx context.Context, starts map[string]kindStart) error {
	rows, err := r.conn.QueryContext(ctx, rebind(r.d, `SELECT kind, cursor, walk_run, walk_from, walk_started, walk_pages, completed_at, walk_time FROM edapp_export_kinds WHERE source = ?`), r.source)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var cursor, from, started, completed, walkTime any
		var run, pages sql.NullInt64
		if err := rows.Scan(&kind, &cursor, &run, &from, &started, &pages, &completed, &walkTime); err != nil {
			return err
		}
		s, ok := starts[kind]
		if !ok {
			continue // a kind this program no longer has
		}
		s.walk = walkState{cursor: scanTime(cursor), from: scanTime(from), started: scanTime(started), completed: scanTime(completed), run: run.Int64, pages: int(pages.Int64), time: scanTime(walkTime)}
		starts[kind] = s
	}
	return rows.Err()
}

// seenTables is the set of the tables with keys in edapp_export_seen for
// the source: those an interrupted walk recorded.
func (r startReader) seenTables(ctx context.Context) (map[string]bool, error) {
	rows, err := r.conn.QueryContext(ctx, rebind(r.d, `SELECT DISTINCT table_name FROM edapp_export_seen WHERE source = ?`), r.source)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		seen[name] = true
	}
	return seen, rows.Err()
}
