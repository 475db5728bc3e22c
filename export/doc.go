// Package export copies an EdApp account into files or a database,
// incrementally, and resumes where an interrupted run stopped. It is the
// engine of the edapp command's export, for tools that wrap it.
//
// Run fetches each kind of record of a Source, a value that holds the
// service's client (edappsrc.New(client) for EdApp, scsrc.New for
// SafetyCulture), and hands its records, a page at a time, to one or more
// destinations:
//
//   - package filedest: CSV or JSONL part files in a directory, with the
//     state in a file beside them;
//   - package sqldest: SQLite or PostgreSQL through database/sql (the
//     caller opens the *sql.DB with a driver), a table per kind keyed on
//     the record's identity, with the cursors in the database itself;
//   - any Destination of the caller's; a ParallelDestination takes the
//     writes of several kinds at once.
//
// Kinds with a date filter (attempts, lesson progress events, survey
// answers, course progress) are incremental: a run fetches them from the
// destination's cursor minus Overlap. The others are fetched in full on
// each run, and a destination mirrors them (Options.MaxAge skips one
// fetched recently). Writing overlaps fetching: a page is written while
// the next ones are in flight. The kinds run at the same time, sharing
// Options.Concurrency requests in flight; a kind that needs another's ids
// (lessons need the courses: Kind.Needs) waits for them instead of listing
// them again.
// Each kind's requests carry its name in their context (KindFromContext),
// for an edapp.Observer.
//
// A run resumed after Ctrl-C or a crash also knows what the last one spent
// of the request budget: with Options.Budget set to the client's
// *edapp.WindowLimiter, a run saves its admissions into the destinations
// (BudgetKeeper) as it goes, and SavedBudget gives them back, for
// edapp.WithAdmissions, before the next run.
//
// The package depends on the SDK and the standard library only.
package export
