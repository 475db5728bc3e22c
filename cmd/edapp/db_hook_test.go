package main

import (
	"context"
	"database/sql"
	"database/sql/driver"

	"github.com/edapp-go/edapp/export/sqldest"
)

// withHookedDB makes the export open its database at url again, through
// hookedDB with onStmt, and hands the *sql.DB to opened (when not nil).
func withHookedDB(url string, onStmt func(q string), opened func(*sql.DB)) func(*factory) {
	return func(f *factory) {
		f.OpenDatabase = func(ctx context.Context, _ *sql.DB, d sqldest.Dialect, opts ...sqldest.DatabaseOption) (*sqldest.Database, error) {
			db, err := hookedDB(url, onStmt)
			if err != nil {
				return nil, err
			}
			if opened != nil {
				opened(db)
			}
			return sqldest.OpenDatabase(ctx, db, d, opts...)
		}
	}
}

// hookedDB opens the database at url through a connector whose
// connections call onStmt with each statement before the driver runs it.
func hookedDB(url string, onStmt func(q string)) (*sql.DB, error) {
	target, err := parseDBURL(url)
	if err != nil {
		return nil, err
	}
	plain, err := sql.Open(target.Driver, driverDSN(target))
	if err != nil {
		return nil, err
	}
	drv := plain.Driver()
	plain.Close()
	return sql.OpenDB(hookConnector{drv, driverDSN(target), onStmt}), nil
}

type hookConnector struct {
	drv    driver.Driver
	dsn    string
	onStmt func(q string)
}

func (c hookConnector) Driver() driver.Driver { return c.drv }

func (c hookConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	return hookConn{conn, c.onStmt}, err
}

// hookConn passes every call on, after onStmt has seen its statement.
type hookConn struct {
	driver.Conn
	onStmt func(q string)
}

func (c hookConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.onStmt(q)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c hookConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.onStmt(q)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c hookConn) BeginTx(ctx context.Context, o driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, o)
}

func (c hookConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	c.onStmt(q)
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, q)
}
