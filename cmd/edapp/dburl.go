package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/sqldest"
)

// dbTarget is a database named by a URL: its dialect, the database/sql
// driver and data source name to open it with, and the URL with its
// password replaced by "xxxxx", for messages.
type dbTarget struct {
	Dialect  dbschema.Dialect
	Driver   string // "sqlite" (modernc.org/sqlite) or "pgx" (github.com/jackc/pgx/v5/stdlib)
	DSN      string // holds the password: never print it
	Redacted string
	password string
}

// String is the redacted URL.
func (t dbTarget) String() string { return t.Redacted }

// GoString is the redacted URL, so that %#v prints no password either.
func (t dbTarget) GoString() string { return fmt.Sprintf("dbTarget{%q}", t.Redacted) }

// Redact returns msg with the URL's password removed, in any of its
// encodings: a driver's message may quote the connection string.
func (t dbTarget) Redact(msg string) string {
	if t.password == "" {
		return msg
	}
	return edapp.Redact(msg, t.password)
}

// errBadDBURL is wrapped by every error parseDBURL returns.
var errBadDBURL = errors.New("invalid database URL")

// parseDBURL reads a database URL: sqlite:PATH, or postgres://... and
// postgresql://... as libpq reads them. Errors never hold the password.
func parseDBURL(raw string) (dbTarget, error) {
	scheme, rest, ok := strings.Cut(raw, ":")
	if !ok {
		return dbTarget{}, fmt.Errorf("%w: want sqlite:PATH or postgres://USER@HOST/DB", errBadDBURL)
	}
	switch strings.ToLower(scheme) {
	case "sqlite", "sqlite3":
		return parseSQLite(rest)
	case "postgres", "postgresql":
		return parsePostgres(raw)
	}
	return dbTarget{}, fmt.Errorf("%w: unknown scheme %q: want sqlite:PATH or postgres://USER@HOST/DB", errBadDBURL, excerpt(scheme))
}

func parseSQLite(path string) (dbTarget, error) {
	path = strings.TrimPrefix(path, "//") // sqlite:///abs/path and sqlite://rel
	if path == "" {
		return dbTarget{}, fmt.Errorf("%w: sqlite: needs a file path (sqlite:edapp.db)", errBadDBURL)
	}
	if strings.ContainsAny(path, "?#\x00") {
		return dbTarget{}, fmt.Errorf("%w: sqlite path %q: ? and # are not allowed in it", errBadDBURL, excerpt(path))
	}
	return dbTarget{Dialect: dbschema.SQLite, Driver: "sqlite", DSN: sqldest.SQLiteDSN(path), Redacted: "sqlite:" + path}, nil
}

func parsePostgres(raw string) (dbTarget, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url's errors quote the whole URL, password and all.
		return dbTarget{}, fmt.Errorf("%w: cannot parse the postgres URL", errBadDBURL)
	}
	if u.Opaque != "" || u.Host == "" && u.Query().Get("host") == "" {
		return dbTarget{}, fmt.Errorf("%w: want postgres://user:password@host:port/database", errBadDBURL)
	}
	pw, _ := u.User.Password()
	red := *u
	if q := u.Query(); q.Has("password") {
		// libpq also takes the password as a parameter.
		pw = q.Get("password")
		q.Set("password", "xxxxx")
		red.RawQuery = q.Encode()
	}
	return dbTarget{Dialect: dbschema.Postgres, Driver: "pgx", DSN: raw, Redacted: red.Redacted(), password: pw}, nil
}

// excerpt bounds a piece of user input quoted in an error.
func excerpt(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
