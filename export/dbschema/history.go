package dbschema

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

// SeedHistory gives every row of source that a table T holds an open
// version in T_history, for each T whose history holds no row of source
// yet: a database that an export at version 19 filled, migrated since, or
// a history table recreated empty. The versions are "known since" the
// migration that added the history tables (its applied_at). It runs in
// tx, the export's, and returns the tables it seeded; with nothing to
// seed, one query. Migrator.Up leaves this to the export, so that an inbox
// that migrates a database first copies no table (on SQLite, under the
// write lock).
func SeedHistory(ctx context.Context, tx *sql.Tx, d Dialect, source string) ([]string, error) {
	var checks []string
	var args []any
	for _, h := range historyTables {
		t := historyTableOf(h.Name)
		checks = append(checks, `SELECT '`+t+`' WHERE EXISTS (SELECT 1 FROM `+t+` WHERE source = ?) AND NOT EXISTS (SELECT 1 FROM `+h.Name+` WHERE source = ?)`)
		args = append(args, source, source)
	}
	rows, err := tx.QueryContext(ctx, rebind(d, strings.Join(checks, " UNION ALL ")), args...)
	if err != nil {
		return nil, err
	}
	var seed []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return nil, err
		}
		seed = append(seed, t)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	for _, t := range seed {
		if _, err := tx.ExecContext(ctx, rebind(d, seedHistorySQL(t)), source); err != nil {
			return nil, err
		}
	}
	return seed, rows.Err()
}

// seedHistorySQL copies the rows of t of the source $1 into t's history
// as open versions, since the history migration.
func seedHistorySQL(t string) string {
	h, _ := Lookup(t + "_history")
	var cols []string
	for _, c := range h.Columns {
		if c.Name != "valid_from" && c.Name != "valid_to" {
			cols = append(cols, c.Name)
		}
	}
	list := strings.Join(cols, ", ")
	return `INSERT INTO ` + h.Name + ` (` + list + `, valid_from, valid_to) SELECT ` + list + `, (SELECT applied_at FROM edapp_schema WHERE version = ` + strconv.Itoa(historyVersion) + `), NULL FROM ` + t + ` WHERE source = ?`
}
