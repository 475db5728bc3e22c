package sqldest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/edapp-go/edapp/export"
)

// On PostgreSQL the kinds' groups are written in parallel, each in a
// transaction on a connection of its own from the pool, up to
// ParallelWrites at once: the server loads one kind while it indexes or
// commits another. The owner's connection (owner.go), which holds the
// export's lock, runs everything else (Resume, Begin, End, the budget),
// one call at a time. SQLite has one writer at a time whatever the
// connection, so there every call runs on the one connection.

// ParallelWrites is how many groups a PostgreSQL export writes at once;
// the pool should keep that many connections idle, and one more
// (sql.DB.SetMaxIdleConns).
const ParallelWrites = 4

// dbShared is what the writes of a Database's groups share, whatever
// their connection.
type dbShared struct {
	seenPart atomic.Int64 // the groups' rows in edapp_export_seen, numbered
}

// writesInParallel says whether Write may run beside the other calls,
// for different kinds: on PostgreSQL.
func (x *Database) writesInParallel() bool {
	return x.d == Postgres
}

// MaxParallelWrites is how many groups, of different kinds, the Database
// writes at once: ParallelWrites on PostgreSQL, one on SQLite (see
// export.ParallelDestination).
func (x *Database) MaxParallelWrites() int {
	if x.writesInParallel() {
		return ParallelWrites
	}
	return 1
}

var _ export.ParallelDestination = (*Database)(nil)

// Write upserts a group of one kind's pages and records the pages they
// complete, in one transaction; the rows the database refuses go to the
// rejects table. On PostgreSQL it runs on a writer, a connection the owner
// lends, beside the writes of other kinds; on SQLite, or when the pool
// has no connection to lend, on the export's own connection.
func (x *Database) Write(ctx context.Context, b *export.Batch) error {
	c := x.kinds.get(b.Kind.Name)
	if !x.writesInParallel() {
		return x.writeOnOwner(ctx, c, b)
	}
	w, release, ok := x.own.lend(ctx)
	if !ok {
		return x.writeOnOwner(ctx, c, b)
	}
	defer release()
	g := x.groupsOn(w)
	err := g.write(ctx, c, b)
	if errors.Is(err, errOwnerLost) {
		// The owner's connection was lost: it takes the lock again (or
		// finds another export holds it), and the group is written again.
		if err = w.o.holdsLock(ctx); err != nil {
			x.own.giveUp(err)
			return err
		}
		err = g.write(ctx, c, b)
	}
	return err
}

// writeOnOwner writes a group on the owner's connection, once its call
// under way, if any, has ended.
func (x *Database) writeOnOwner(ctx context.Context, c *dbKind, b *export.Batch) error {
	x.own.mu.Lock()
	defer x.own.mu.Unlock()
	return x.groupsOn(x.own).write(ctx, c, b)
}

// groupsOn is the writer of x's groups on conn: the owner's or a writer's.
func (x *Database) groupsOn(conn groupConn) *groupWriter {
	return &groupWriter{on: conn, d: x.d, source: x.source, rows: x.rows, loader: x.loader, shared: x.shared}
}

// kindMap is the kinds being written, by name, under a lock of its own:
// a kind's group goes to a writer without waiting for the calls that hold
// owner.mu (another kind's End, which may build indexes, or Begin).
type kindMap struct {
	mu sync.Mutex
	m  map[string]*dbKind
}

func (k *kindMap) get(name string) *dbKind {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.m[name]
}

// lookup is the kind of that name; ok is false when none is being
// written (its Resume failed).
func (k *kindMap) lookup(name string) (c *dbKind, ok bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	c, ok = k.m[name]
	return c, ok
}

func (k *kindMap) set(name string, c *dbKind) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = map[string]*dbKind{}
	}
	k.m[name] = c
}

func (k *kindMap) drop(name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, name)
}
