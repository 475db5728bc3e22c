package export

import (
	"context"
	"time"
)

// A Source is a service the export reads: its kinds, in the order a run
// starts them. edappsrc.New and scsrc.New make EdApp's and
// SafetyCulture's.
type Source interface {
	// Name is the source's name, as destinations record it ("edapp",
	// "safetyculture").
	Name() string
	// Kinds are the source's kinds, in order; Run calls it once per run.
	Kinds() []Kind
}

// Kind is one kind of record the export fetches. A destination reads its
// fields; the engine alone calls Fetch and Probe.
type Kind struct {
	Name    string   // the table, file (mirrored kinds) or directory (incremental kinds)
	Columns []string // CSV columns, in order: the record's JSON field names (its table's Fields)
	PerUser bool     // costs one request per user; only with Options.PerUser
	// PerParent kinds are fetched with one list per parent (group, course,
	// collection, user), or read from another kind's walk (group_members,
	// from the users'), so no single total count drives their progress.
	PerParent bool

	// Incremental kinds have a date filter: a run fetches them from the
	// cursor minus Overlap and upserts. The other kinds are fetched in full
	// and mirrored. DateField is the record field the filter bounds; empty
	// when the filter bounds a time the records do not show (course
	// progress: the time of the last change). KeyFields identify a record
	// in the files destination, which keeps every version of a record.
	Incremental bool
	DateField   string
	KeyFields   []string
	// OpenField, when set, is a date field that is empty while a record is
	// open (an attempt not yet completed): such records are fetched again
	// while younger than Options.OpenWindow.
	OpenField string
	// Overlap, when above 0, replaces the package's Overlap for the kind:
	// a service whose records arrive late needs more. Options.Overlap
	// replaces it for a run; the largest of a source's incremental kinds
	// is the least Options.Overlap the source takes.
	Overlap time.Duration
	// Remirror marks an incremental kind whose filter cannot show a
	// deletion (a course progress reset leaves no row to fetch): a walk
	// from no lower bound (Plan.From zero) is a full one, after which a
	// destination that can drops the rows the walk did not see, as for a
	// mirrored kind, and records the walk as its Plan.Fetched; an
	// incremental walk moves the cursor only. The engine plans a full walk
	// when the last one is older than Options.MaxAge (DefaultMirrorAge
	// when 0), or when the service does not honour the filter (Probe).
	Remirror bool

	// Needs names the kinds of the same source whose walk this kind reads
	// (lessons read the courses' ids, group members the users'): when the
	// run fetches one of them, Fetch waits for what it shares (Shared)
	// rather than listing it again.
	Needs []string
	// Fetch sends every record of the kind to f (Emit), from f.Plan(),
	// each request in a place of f.InFlight().
	Fetch func(ctx context.Context, f *Fetch) error
	// Probe, for a Remirror kind, asks the service whether it honours the
	// kind's filter; false: every walk is a full one. waited is the time
	// its request waited for the budget, which counts as the kind's. Its
	// f emits nothing.
	Probe func(ctx context.Context, f *Fetch) (honoured bool, waited time.Duration, err error)
}

// overlap is how far before its cursor the kind is fetched again.
func (k *Kind) overlap() time.Duration {
	if k.Overlap > 0 {
		return k.Overlap
	}
	return Overlap
}
