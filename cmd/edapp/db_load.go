package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/edapp-go/edapp/export/sqldest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// pgxCopier is the export's bulk path on PostgreSQL: COPY through pgx.
type pgxCopier struct{}

var _ sqldest.BulkLoader = pgxCopier{}

// CopyRows copies the rows next returns into table with COPY, on the pgx
// connection under database/sql's.
func (pgxCopier) CopyRows(ctx context.Context, driverConn any, table string, columns []string, next func() ([]any, error)) (int64, error) {
	c, ok := driverConn.(*stdlib.Conn)
	if !ok {
		return 0, fmt.Errorf("copy into %s through a %T: %w", table, driverConn, errors.ErrUnsupported)
	}
	return c.Conn().CopyFrom(ctx, pgx.Identifier{table}, columns, pgx.CopyFromFunc(next))
}
