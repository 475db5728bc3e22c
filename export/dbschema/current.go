package dbschema

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"slices"
	"strings"
)

// A PostgreSQL database is opened at every export, and a re-run finds
// it current. Up then first asks, in one read and without its lock
// or a transaction, whether there is anything to do: the latest version,
// every table and view of the schema, and the dictionary's comments. Only
// an answer of "nothing" skips the migration; an error or a difference
// runs it as before, under its lock, which settles the rest. On SQLite
// the check is local and cheap, and the write lock the migration takes
// orders two programs that open one file at once.

// upToDate reports whether conn's PostgreSQL database needs nothing from
// Up.
func upToDate(ctx context.Context, conn *sql.Conn) bool {
	var version, relations int
	var digest string
	err := conn.QueryRowContext(ctx, upToDateSQL()).Scan(&version, &relations, &digest)
	return err == nil && version == latest() && relations == len(relationNames()) && digest == commentsDigest()
}

// upToDateSQL reads the schema version, how many of the schema's tables
// and views the database has, and commentsDigest as the database's
// comments give it.
func upToDateSQL() string {
	return `SELECT (SELECT CAST(MAX(version) AS BIGINT) FROM edapp_schema),
(SELECT COUNT(*) FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'v', 'm', 'f', 'p') AND relname IN (` + quoteList(relationNames()) + `)),
(SELECT encode(sha256(convert_to(COALESCE(string_agg(t || E'\x1f' || col || E'\x1f' || txt || E'\x1e', '' ORDER BY t COLLATE "C", col COLLATE "C"), ''), 'UTF8')), 'hex')
FROM (` + liveCommentsSQL + `) AS live (t, col, txt) WHERE txt <> '' AND t IN (` + quoteList(commentedTables()) + `))`
}

// commentsDigest is a SHA-256, in hex, of the dictionary's comments that
// are not empty, sorted by table and column, each as its table, column
// ("" for the table's own) and text, separated by U+001F and ended by
// U+001E.
func commentsDigest() string {
	cs := slices.DeleteFunc(comments(), func(c comment) bool { return c.text == "" })
	slices.SortFunc(cs, func(a, b comment) int {
		return cmp.Or(strings.Compare(a.table, b.table), strings.Compare(a.column, b.column))
	})
	h := sha256.New()
	for _, c := range cs {
		h.Write([]byte(c.table + "\x1f" + c.column + "\x1f" + c.text + "\x1e"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// relationNames are the schema's tables and views.
func relationNames() []string {
	var out []string
	for _, t := range Tables() {
		out = append(out, t.Name)
	}
	for _, v := range views() {
		out = append(out, v.Name)
	}
	return out
}

// commentedTables are the tables comments describes.
func commentedTables() []string {
	var out []string
	for _, c := range comments() {
		if len(out) == 0 || out[len(out)-1] != c.table {
			out = append(out, c.table)
		}
	}
	return out
}

// quoteList is names as a list of SQL string literals.
func quoteList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = quote(n)
	}
	return strings.Join(quoted, ", ")
}
