package webhook

import (
	"context"
	"fmt"
)

// putRequest is one delivery waiting for the writer.
type putRequest struct {
	ctx  context.Context // the delivery's; once done, nobody waits for the row
	args []any
	done chan putResult // buffered: the writer never blocks on it
}

type putResult struct {
	stored bool
	err    error
}

// run is the writer: it takes the deliveries that are waiting, commits them
// in one transaction, answers each, and starts again. After Close it
// writes what is queued and ends.
func (s *Store) run() {
	defer close(s.stopped)
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
// maxBatch, leaving out the ones nobody waits for. It returns nil once the
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
		if r.ctx.Err() == nil {
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
// that one row the database refuses fails alone; when the database does
// not answer, every delivery is told [ErrUnavailable].
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
	if ctx.Err() != nil || s.db.PingContext(ctx) != nil {
		err = fmt.Errorf("%w: %v", ErrUnavailable, err)
	} else if len(batch) > 1 {
		for _, r := range batch {
			s.write([]*putRequest{r})
		}
		return
	}
	for _, r := range batch {
		r.done <- putResult{err: err}
	}
}

// commit inserts the rows of batch in one transaction on the writer's
// connection, and reports which were new.
func (s *Store) commit(ctx context.Context, batch []*putRequest) ([]bool, error) {
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	tx, err := s.conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() // after Commit, a no-op
	stmt := tx.StmtContext(ctx, s.stmt)
	stored := make([]bool, len(batch))
	for i, r := range batch {
		res, err := stmt.ExecContext(ctx, r.args...)
		if err != nil {
			return nil, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, err
		}
		stored[i] = n == 1
	}
	return stored, tx.Commit()
}

// connect gives the writer a configured connection with the insert
// prepared on it, unless it has one.
func (s *Store) connect(ctx context.Context) error {
	if s.conn != nil {
		return nil
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	err = s.configure(ctx, conn)
	if err == nil {
		s.stmt, err = conn.PrepareContext(ctx, s.insert)
	}
	if err != nil {
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
		s.stmt.Close()
		s.conn.Close()
		s.conn, s.stmt = nil, nil
	}
}
