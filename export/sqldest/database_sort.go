package sqldest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// An index build sorts the keys of the whole table. The SQLite
// connection keeps its temporary storage in memory (temp_store MEMORY:
// the savepoints of a replay row by row are journalled there), and a
// build's sort there grew the export's memory with the table. So a build
// sorts through temporary files (temp_store FILE), which the system
// keeps out of the export's memory, so that its peak stays flat however
// big the account; the driver also writes files faster than its memory
// journal (docs/bench/database-writer.md has the figures). Where no temporary directory takes the
// files (a scratch image has no /tmp; a full disk), the build fails and
// runs again in memory.

// buildIndex runs stmt, which builds one index, in a transaction under
// the index lock: all or nothing.
func (x *Database) buildIndex(ctx context.Context, stmt string) error {
	build := func() error {
		return x.own.tx(ctx, func(tx *sql.Tx) error {
			if err := (indexes{x.d}).lock(ctx, tx); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, stmt)
			return err
		})
	}
	if x.d != SQLite {
		return build()
	}
	restore, err := sortOnDisk(ctx, x.own.conn)
	if err != nil {
		return err
	}
	err = build()
	if rerr := restore(); rerr != nil {
		return errors.Join(err, rerr)
	}
	if tempFileFailed(err) {
		return build() // in memory
	}
	return err
}

// sortOnDisk points the connection's temporary storage at files, and
// returns what gives it back the storage it had.
func sortOnDisk(ctx context.Context, conn *sql.Conn) (restore func() error, err error) {
	var was int
	if err := conn.QueryRowContext(ctx, `PRAGMA temp_store`).Scan(&was); err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA temp_store = FILE`); err != nil {
		return nil, err
	}
	return func() error {
		_, err := conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA temp_store = %d`, was))
		return err
	}, nil
}

// tempFileFailed reports whether err is SQLite's failure with a file:
// an I/O error, a full disk, or a file it cannot open (primary result
// codes 10, 13 and 14), as a temporary file without a directory to take
// it fails. Detected by interface, as keyTaken does.
func tempFileFailed(err error) bool {
	var lite interface{ Code() int }
	if !errors.As(err, &lite) {
		return false
	}
	switch lite.Code() & 0xff {
	case 10, 13, 14:
		return true
	}
	return false
}
