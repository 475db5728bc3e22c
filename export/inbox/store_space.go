package inbox

import (
	"context"
	"fmt"

	"github.com/edapp-go/edapp/webhook"
)

// walSizeLimit is the SQLite journal_size_limit of the writer's
// connection: after a checkpoint, the write-ahead log is cut back to at
// most this, so a burst of deliveries does not leave a large file behind
// on a small disk.
const walSizeLimit = 64 << 20

// checkpoint, on SQLite, copies the write-ahead log into the database and
// truncates it, after a write that failed: a log left large by a full
// disk shrinks as soon as there is room for the checkpoint, so the next
// write has the room freed. It is best effort: when it fails, the next
// failed write tries again.
func (s *Store) checkpoint() {
	if s.dialect != SQLite {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.writeTimeout)
	defer cancel()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	_, _ = conn.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
}

// outOfSpace is the error a delivery the database had no room for is
// answered with: webhook.ErrUnavailable, so the sender tries again later.
func outOfSpace(err error) error {
	return fmt.Errorf("%w: the database has no room for it now: %v", webhook.ErrUnavailable, err)
}
