package inbox

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/internal/dbwrite"
	"github.com/edapp-go/edapp/webhook"
)

// putRequest is one delivery waiting for the writer.
type putRequest struct {
	ctx  context.Context // the delivery's; once done, nobody waits for the row
	key  string
	args []any          // of one row of insertStatement
	done chan putResult // buffered: the writer never blocks on it
	// state settles, once, who has the delivery when its deadline and the
	// writer meet: the writer (claimed), which then answers it with the
	// commit's outcome, or Put (abandoned), which answers it 503 and whose
	// row the writer leaves out. So a delivery answered 503 is never
	// committed.
	state atomic.Int32
}

// The states of a putRequest.
const (
	pending int32 = iota
	claimed
	abandoned
)

// claim gives the writer the delivery, unless Put has given up on it.
func (r *putRequest) claim() bool {
	return r.ctx.Err() == nil && r.state.CompareAndSwap(pending, claimed)
}

// abandon gives up on the delivery, unless the writer has it.
func (r *putRequest) abandon() bool { return r.state.CompareAndSwap(pending, abandoned) }

type putResult struct {
	stored bool
	err    error
}

// run is the writer: it takes the deliveries that are waiting, commits them
// in one transaction, answers each, and starts again. After Close it
// writes what is queued and ends.
func (s *Store) run() {
	defer close(s.stopped)
	defer s.closeStmts()
	defer s.dropConn()
	for {
		batch := s.nextBatch()
		if batch == nil {
			return
		}
		s.write(batch)
	}
}

// nextBatch waits for a delivery and takes those queued behind it, up to
// maxBatch, leaving out the ones nobody waits for (abandoned). It returns nil once the
// Store is closed and the queue is empty.
func (s *Store) nextBatch() []*putRequest {
	var first *putRequest
	select {
	case first = <-s.queue:
	case <-s.quit:
		select {
		case first = <-s.queue:
		default:
			return nil
		}
	}
	batch := make([]*putRequest, 0, 16)
	for r := first; ; {
		if r.claim() {
			batch = append(batch, r)
		}
		if len(batch) == maxBatch {
			return batch
		}
		select {
		case r = <-s.queue:
		default:
			return batch
		}
	}
}

// write commits batch and answers each delivery. When the transaction
// fails and the database still answers, each row is tried on its own, so
// that one row the database refuses fails alone: for good (a data error)
// it goes to the rejects table and is told [webhook.ErrRejected]. When the
// database does not answer, every delivery is told [webhook.ErrUnavailable].
func (s *Store) write(batch []*putRequest) {
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.writeTimeout)
	defer cancel()
	stored, err := s.commit(ctx, batch)
	if err == nil {
		for i, r := range batch {
			r.done <- putResult{stored: stored[i]}
		}
		return
	}
	s.dropConn()
	s.checkpoint()
	switch {
	case ctx.Err() != nil || s.db.PingContext(ctx) != nil:
		err = fmt.Errorf("%w: %v", webhook.ErrUnavailable, err)
	case dbwrite.IsOutOfSpace(err):
		err = outOfSpace(err)
	case len(batch) > 1:
		for _, r := range batch {
			s.write([]*putRequest{r})
		}
		return
	case dbwrite.IsDataError(err):
		if kerr := s.keepRejected(ctx, batch[0], err); kerr != nil {
			err = fmt.Errorf("%w: %v (and keeping it in rejects: %v)", webhook.ErrUnavailable, err, kerr)
		} else {
			err = fmt.Errorf("%w: %v", webhook.ErrRejected, err)
		}
	}
	for _, r := range batch {
		r.done <- putResult{err: err}
	}
}

// keepRejected puts the delivery r, which the database refused for good
// with cause, in the rejects table.
func (s *Store) keepRejected(ctx context.Context, r *putRequest, cause error) error {
	if err := s.connect(ctx); err != nil {
		return err
	}
	tx, err := s.conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // after Commit, a no-op
	raw, _ := r.args[colRaw].(string)
	rej := dbwrite.Reject{Source: "edapp", Kind: "events", Identity: r.key, Reason: cause.Error(), Raw: raw, At: time.Now()}
	if err := dbwrite.InsertRejects(ctx, tx, dbschema.Dialect(s.dialect), []dbwrite.Reject{rej}); err != nil {
		return err
	}
	return tx.Commit()
}

// commit inserts the rows of batch in one transaction on the writer's
// connection, and reports which were new. A key that appears twice in
// batch is inserted once: its later copies are reported as already stored.
func (s *Store) commit(ctx context.Context, batch []*putRequest) ([]bool, error) {
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	tx, err := s.conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() // after Commit, a no-op
	firsts, rows := distinctKeys(batch)
	inserted := make(map[string]bool, len(rows))
	for len(rows) > 0 {
		n := min(len(rows), rowsPerInsert)
		if err := s.insertRows(ctx, tx, rows[:n], inserted); err != nil {
			return nil, err
		}
		rows = rows[n:]
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	stored := make([]bool, len(batch))
	for i, r := range batch {
		stored[i] = firsts[i] && inserted[r.key]
	}
	return stored, nil
}

// distinctKeys returns, for each delivery of batch, whether it is the first
// with its key, and those first deliveries.
func distinctKeys(batch []*putRequest) (firsts []bool, rows []*putRequest) {
	seen := make(map[string]bool, len(batch))
	firsts = make([]bool, len(batch))
	for i, r := range batch {
		if !seen[r.key] {
			seen[r.key] = true
			firsts[i] = true
			rows = append(rows, r)
		}
	}
	return firsts, rows
}

// insertRows inserts rows with one statement and adds the keys of those
// that were new to inserted.
func (s *Store) insertRows(ctx context.Context, tx *sql.Tx, rows []*putRequest, inserted map[string]bool) error {
	args := make([]any, 0, len(rows)*len(eventsColumns))
	for _, r := range rows {
		args = append(args, r.args...)
	}
	keys, err := tx.StmtContext(ctx, s.inserts[len(rows)]).QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer keys.Close()
	for keys.Next() {
		var key string
		if err := keys.Scan(&key); err != nil {
			return err
		}
		inserted[key] = true
	}
	return keys.Err()
}

// connect gives the writer a configured connection, unless it has one.
func (s *Store) connect(ctx context.Context) error {
	if s.conn != nil {
		return nil
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	if err := s.configure(ctx, conn); err != nil {
		conn.Close()
		return err
	}
	s.conn = conn
	return nil
}

// dropConn gives the writer's connection back, so that the next batch
// starts on a fresh one.
func (s *Store) dropConn() {
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
}
