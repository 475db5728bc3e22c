package sqldest

// sqlitePragmas are set on every SQLite connection: WAL, so that readers
// (a BI tool) never block the writer; a busy timeout, so that a writer
// waits for another rather than failing; synchronous FULL, so that a
// committed transaction survives a power cut; temporary files in memory,
// so that the journal of a savepoint or of a multi-row statement that may
// abort (a few pages, dropped when it ends) and the sorts of an index
// build cost no system call. (The export's row inserts, INSERT OR FAIL,
// keep no such journal.)
//
// A new database gets pages of 16 KiB: an export's rows hold their JSON,
// a few hundred bytes each, and larger pages write them in fewer frames
// and system calls (docs/bench/database-writer.md). The page size is fixed once the
// file is in WAL mode, so WAL is asked for by _journal_mode, which the
// driver applies after the _pragma list; an existing database keeps its
// page size. The page cache is 8 MiB (512 pages of 16 KiB): the driver's
// allocator gives each block of over 16 KiB (a page and its header) 64 KiB
// of memory, so a larger cache multiplies an export's peak memory.
const sqlitePragmas = "_pragma=busy_timeout(10000)&_pragma=page_size(16384)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_pragma=cache_size(-8192)&_pragma=temp_store(MEMORY)&_journal_mode=WAL"

// SQLiteDSN is the data source name that opens the SQLite file at path
// with the pragmas the export's figures and the inbox's durability rely
// on, for the driver modernc.org/sqlite ("sqlite"): WAL, synchronous
// FULL, a busy timeout, 16 KiB pages for a new file, an 8 MiB page cache,
// temporary files in memory and foreign keys. path must hold no ? nor
// #, which the driver would read as the start of its parameters.
func SQLiteDSN(path string) string { return path + "?" + sqlitePragmas }
