package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/edapp-go/edapp/dbschema"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"
)

// dbPingTimeout bounds the first contact with a database.
const dbPingTimeout = 15 * time.Second

// openDB opens the database a --db URL names and checks that it answers.
// A URL it cannot read is a usage error; a database that does not answer
// is an error that names the redacted URL. No error holds the password.
func openDB(ctx context.Context, raw string) (*sql.DB, dbschema.Target, error) {
	t, err := dbschema.ParseURL(raw)
	if err != nil {
		return nil, t, usageError{fmt.Errorf("--db: %w", err)}
	}
	if t.Dialect == dbschema.SQLite {
		createPrivate(strings.SplitN(t.DSN, "?", 2)[0])
	}
	db, err := sql.Open(t.Driver, t.DSN)
	if err != nil {
		return nil, t, fmt.Errorf("database %s: %s", t.Redacted, cleanDBError(t, err))
	}
	pctx, cancel := context.WithTimeout(ctx, dbPingTimeout)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, t, fmt.Errorf("database %s cannot be reached: %s", t.Redacted, cleanDBError(t, err))
	}
	return db, t, nil
}

// cleanDBError is err's text with the password of t removed. Drivers may
// quote the connection string.
func cleanDBError(t dbschema.Target, err error) string {
	msg := err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		msg = "no answer within " + dbPingTimeout.String()
	}
	return t.Redact(msg)
}
