package inbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/webhook"
)

// Dialect is the SQL dialect of the database a Store writes to.
type Dialect int

// The dialects a Store speaks. The caller opens the *sql.DB with a driver
// of its choice (the edapp command uses modernc.org/sqlite and
// github.com/jackc/pgx/v5/stdlib).
const (
	SQLite   = Dialect(dbschema.SQLite)
	Postgres = Dialect(dbschema.Postgres)
)

// Defaults of a Store.
const (
	defaultWriteTimeout = 5 * time.Second
	// maxBatch bounds the deliveries committed in one transaction.
	maxBatch = 256
	// queueSize bounds the deliveries waiting for the writer; one more is
	// answered 503 at once.
	queueSize = 4096
)

// Store keeps webhook deliveries in the events table of a database, through
// database/sql: one row per distinct event, keyed by [edapp.EventKey], with
// the event's fields in snake_case columns and the delivery as received in
// raw. A redelivery of a stored event changes nothing.
//
// One writer commits the deliveries that arrive together in one short
// transaction (group commit), so concurrent deliveries share a disk flush;
// no delivery is reported stored before its transaction commits. On SQLite
// the writer's connection runs with synchronous=FULL (a committed row
// survives a power cut) and a busy timeout, on a database in WAL mode, so
// that other programs (the edapp export, a BI tool) can use the same file.
// On PostgreSQL it runs with synchronous_commit on.
type Store struct {
	db           *sql.DB
	dialect      Dialect
	writeTimeout time.Duration
	queue        chan *putRequest
	quit         chan struct{}
	stopped      chan struct{}
	closeOnce    sync.Once
	// inserts[n] is insertStatement for n rows, prepared on db once: a
	// transaction prepares it on its connection the first time it uses it,
	// and reuses it on that connection afterwards.
	inserts [rowsPerInsert + 1]*sql.Stmt
	conn    *sql.Conn // the writer's; only the writer goroutine uses it
}

// StoreOption configures a Store. A bad value makes [NewStore] fail with an
// error wrapping [edapp.ErrInvalidInput]; a nil StoreOption is skipped.
type StoreOption func(*Store) error

// WithWriteTimeout bounds how long a delivery waits for the writer to take
// it, queueing included; past it, Put fails with [webhook.ErrUnavailable] and the
// Store's handler answers 503 with Retry-After, and the row is never
// written. A delivery the writer took in time is answered with its
// transaction's outcome, which the same bound limits: at most twice d in
// all. The default is 5 s; d must be positive.
func WithWriteTimeout(d time.Duration) StoreOption {
	return func(s *Store) error {
		if d <= 0 {
			return fmt.Errorf("WithWriteTimeout needs a positive duration, got %v", d)
		}
		s.writeTimeout = d
		return nil
	}
}

// NewStore returns a Store writing to db, after creating the events table or
// bringing the schema forward (the schema is shared with the edapp
// command's export and versioned in edapp_schema). It starts the writer;
// Close stops it. db stays the caller's: Close does not close it.
func NewStore(ctx context.Context, db *sql.DB, dialect Dialect, opts ...StoreOption) (*Store, error) {
	if db == nil || (dialect != SQLite && dialect != Postgres) {
		return nil, fmt.Errorf("%w: inbox.NewStore needs a database and the dialect SQLite or Postgres", edapp.ErrInvalidInput)
	}
	s := &Store{
		db:           db,
		dialect:      dialect,
		writeTimeout: defaultWriteTimeout,
		queue:        make(chan *putRequest, queueSize),
		quit:         make(chan struct{}),
		stopped:      make(chan struct{}),
	}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(s); err != nil {
			return nil, fmt.Errorf("%w: webhook store: %v", edapp.ErrInvalidInput, err)
		}
	}
	if err := dbschema.NewMigrator(db, dbschema.Dialect(dialect)).Up(ctx); err != nil {
		return nil, fmt.Errorf("webhook store: %w", err)
	}
	if err := s.prepare(ctx); err != nil {
		return nil, fmt.Errorf("webhook store: %w", err)
	}
	go s.run()
	return s, nil
}

// Handler returns a [webhook.Handler] that stores each delivery it accepts
// with Put: it answers 200 only once the row is committed (or was already
// there), 503 with Retry-After when the database cannot take it in time,
// and 422, which senders do not retry, when the database refuses it for
// good (kept in the rejects table). It decodes each body with
// [edapp.ParseEvent] and takes opts as [webhook.NewHandler] does.
// Its log line for a delivery carries the result: stored or duplicate.
func (s *Store) Handler(opts ...webhook.Option) (*webhook.Handler, error) {
	return webhook.NewHandlerFunc(parseDelivery, func(ctx context.Context, d *delivery) error {
		stored, err := s.put(ctx, d.key, d.Event, d.raw)
		switch {
		case err != nil:
			d.result = "not stored"
		case stored:
			d.result = "stored"
		default:
			d.result = "duplicate"
		}
		return err
	}, opts...)
}

// delivery is a decoded delivery with the body it came in: the store
// keeps both.
type delivery struct {
	edapp.Event
	raw    []byte
	key    string // edapp.EventKey
	result string // what the store did, for the handler's log line
}

// Key is the event's key, under which the handler logs the delivery.
func (d *delivery) Key() string { return d.key }

// Result is what the store did with the delivery, for the handler's log line.
func (d *delivery) Result() string { return d.result }

// parseDelivery decodes a body as the handler of [webhook.NewHandler] does.
func parseDelivery(_ http.Header, body []byte) (*delivery, int, error) {
	ev, err := edapp.ParseEvent(body)
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	return &delivery{Event: ev, raw: body, key: edapp.EventKey(ev)}, http.StatusOK, nil
}

// Put stores ev, whose delivery body (JSON) was raw, and returns once its
// row is committed. A column is filled only where raw carries the field
// with a value other than null (an explicit 0 or "" is kept); the others
// are NULL. Pass the body ev was parsed from. Put returns once committed: stored is true for a new row and false for an event
// already stored. An error that is [webhook.ErrUnavailable] means the database could
// not take it within the write timeout (or the Store is closed); a sender
// should deliver it again later. One that is [webhook.ErrRejected] means the
// database refused its row for good (a data error, such as a constraint a
// database administrator added): the delivery is kept in the rejects table
// instead, and delivering it again would not help. A nil event or a raw that is not JSON is
// an error wrapping [edapp.ErrInvalidInput].
func (s *Store) Put(ctx context.Context, ev edapp.Event, raw []byte) (stored bool, err error) {
	key := edapp.EventKey(ev)
	if key == "" || !json.Valid(raw) {
		return false, fmt.Errorf("%w: webhook store: Put needs an event and its delivery's JSON body", edapp.ErrInvalidInput)
	}
	return s.put(ctx, key, ev, raw)
}

func (s *Store) put(ctx context.Context, key string, ev edapp.Event, raw []byte) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.writeTimeout)
	defer cancel()
	r := &putRequest{ctx: ctx, key: key, args: s.rowArgs(key, ev, raw, time.Now()), done: make(chan putResult, 1)}
	select {
	case <-s.quit:
		return false, fmt.Errorf("%w: the store is closed", webhook.ErrUnavailable)
	default:
	}
	select {
	case s.queue <- r:
	default:
		return false, fmt.Errorf("%w: %d deliveries wait for the database", webhook.ErrUnavailable, queueSize)
	}
	select {
	case res := <-r.done:
		return res.stored, res.err
	case <-ctx.Done():
		if r.abandon() {
			return false, fmt.Errorf("%w: not committed within %v", webhook.ErrUnavailable, s.writeTimeout)
		}
		// The writer has it: its transaction, bounded by its own write
		// timeout, decides the answer.
		res := <-r.done
		return res.stored, res.err
	}
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// Close stops the writer once the deliveries already queued are written,
// and waits for it. Put fails with [webhook.ErrUnavailable] afterwards. It does not
// close the database.
func (s *Store) Close() error {
	s.closeOnce.Do(func() { close(s.quit) })
	<-s.stopped
	return nil
}

// prepare prepares the inserts, before the writer holds a connection: a
// pool limited to one connection has it free now.
func (s *Store) prepare(ctx context.Context) error {
	for n := 1; n <= rowsPerInsert; n++ {
		stmt, err := s.db.PrepareContext(ctx, insertStatement(s.dialect, n))
		if err != nil {
			s.closeStmts()
			return err
		}
		s.inserts[n] = stmt
	}
	return nil
}

// closeStmts closes the prepared inserts.
func (s *Store) closeStmts() {
	for n, stmt := range s.inserts {
		if stmt != nil {
			stmt.Close()
			s.inserts[n] = nil
		}
	}
}

// Settings returns the durability settings of a connection set up as the
// writer's is: on SQLite journal_mode, synchronous (2 is FULL),
// busy_timeout (ms, the write timeout plus 1 s) and journal_size_limit
// (bytes); on PostgreSQL synchronous_commit.
func (s *Store) Settings(ctx context.Context) (map[string]string, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := s.configure(ctx, conn); err != nil {
		return nil, err
	}
	names := []string{"synchronous_commit"}
	if s.dialect == SQLite {
		names = []string{"journal_mode", "synchronous", "busy_timeout", "journal_size_limit"}
	}
	out := map[string]string{}
	for _, name := range names {
		q := "SHOW " + name
		if s.dialect == SQLite {
			q = "PRAGMA " + name
		}
		var v string
		if err := conn.QueryRowContext(ctx, q).Scan(&v); err != nil {
			return nil, fmt.Errorf("webhook store: reading %s: %w", name, err)
		}
		out[name] = v
	}
	return out, nil
}

// configure sets up a writer's connection for durable commits.
func (s *Store) configure(ctx context.Context, conn *sql.Conn) error {
	stmts := []string{"SET synchronous_commit TO on"}
	if s.dialect == SQLite {
		stmts = []string{"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA busy_timeout=" + fmt.Sprint(s.busyTimeout().Milliseconds()),
			"PRAGMA journal_size_limit=" + fmt.Sprint(walSizeLimit)}
	}
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("webhook store: %s: %w", q, err)
		}
	}
	return nil
}

// busyTimeout is how long the writer waits for another SQLite writer (the
// export) to let go of the database: longer than a delivery waits, so that
// a delivery kept waiting by another writer is answered 503 (not committed
// in time), never 500.
func (s *Store) busyTimeout() time.Duration { return s.writeTimeout + time.Second }
