package sqldest

import "github.com/edapp-go/edapp/export/internal/dbwrite"

// writeState is one group's write: how it writes, and what it gathers on
// the way. Write builds it, and each try of the group's transaction gets
// its own copy, passed down the calls of that try; nothing of it stays on
// the Database.
type writeState struct {
	fresh      bool                  // a kind's first load into tables empty at the walk's start: plain inserts
	rowByRow   bool                  // the replay after a data error: each row under a savepoint
	upsertOnly bool                  // a try again on a new connection, whose lost commit may have landed
	seenRun    int64                 // the full walk whose seen keys it records; 0 for none
	known      map[string]*knownRows // its kind's rows when the walk began, by table (see changed)
	held       rejectKeys            // the record keys of its kind's rejects when the kind began, by table
	rejects    []dbwrite.Reject      // its rows rejected so far, for the rejects table
	accepted   rejectList            // the record keys of held it wrote, by table
}

// plain reports whether the write inserts without a conflict clause: a
// first load into tables empty at the walk's start, but not in a replay
// row by row nor in a try again on a new connection (whose lost commit
// may have reached the server).
func (w *writeState) plain() bool {
	return w.fresh && !w.rowByRow && !w.upsertOnly
}
