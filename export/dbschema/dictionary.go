package dbschema

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The data dictionary: the tables' and columns' meanings, brought up to
// date in the database by Migrator.Up where it differs (COMMENT ON in PostgreSQL, the
// edapp_columns table in SQLite, which has no comments) and into the
// schema's documentation (Markdown). It lives outside the migrations: a
// better description changes no released migration.

// edappSchemaTable is the migrations' own record, which the Migrator creates
// before the first migration (see version).
var edappSchemaTable = Table{Name: "edapp_schema", Description: "The schema's own: one row per migration applied to the database.", Key: []string{"version"},
	Columns: []Column{
		{Name: "version", Type: Int, Origin: FromEngine, Description: "The migration's version; the highest is the database's schema version."},
		{Name: "name", Type: Text, Origin: FromEngine, Description: "What the migration does, in a few words."},
		{Name: "applied_at", Type: Time, Origin: FromEngine, Description: "When it was applied."},
	},
}

// edappColumnsTable holds the dictionary in SQLite. Migrator.Up rewrites its
// rows at an open that finds them different; PostgreSQL has comments
// instead.
var edappColumnsTable = Table{Name: "edapp_columns", Description: "The data dictionary (SQLite only; PostgreSQL has COMMENT ON): one row per column of every table, rewritten by an open that finds it out of date.", Key: []string{"table_name", "column_name"},
	Columns: []Column{
		{Name: "table_name", Type: Text, Origin: FromEngine, Description: "The table."},
		{Name: "column_name", Type: Text, Origin: FromEngine, Description: "The column."},
		{Name: "position", Type: Int, Origin: FromEngine, Description: "The column's place in its table, from 1."},
		{Name: "type", Type: Text, Origin: FromEngine, Description: "The column's type in the schema's terms: text, int, real, bool, time, json or serial (see docs/schema.md)."},
		{Name: "meaning", Type: Text, Origin: FromEngine, Description: "What a value means, in one line."},
		{Name: "unit", Type: Text, Origin: FromEngine, Nullable: true, Description: "The unit or scale of a number; NULL when none applies."},
		{Name: "nullable", Type: Bool, Origin: FromEngine, Description: "Whether the column may hold NULL."},
		{Name: "filled_by", Type: Text, Origin: FromEngine, Description: "Who fills the column: EdApp, SafetyCulture (fields of their records) or edapp (the program itself)."},
		{Name: "table_meaning", Type: Text, Origin: FromEngine, Description: "What a row of the table is."},
	},
}

// Dictionary returns every table and view of a database this package
// makes, with its meaning: the migrations' tables (Tables), their views
// (with no key), then edapp_schema and edapp_columns (SQLite only), which
// the Migrator makes outside them.
func Dictionary() []Table {
	return append(append(Tables(), viewTables()...), edappSchemaTable.clone(), edappColumnsTable.clone())
}

// String names who fills a column: EdApp, SafetyCulture or edapp (the
// program itself), joined by " and " when several do.
func (o Origin) String() string {
	var names []string
	for _, n := range []struct {
		o    Origin
		name string
	}{{FromEdApp, "EdApp"}, {FromSafetyCulture, "SafetyCulture"}, {FromEngine, "edapp"}} {
		if o&n.o != 0 {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "Origin(" + strconv.Itoa(int(o)) + ")"
	}
	return strings.Join(names, " and ")
}

// dictionarySQL is the statements that write the dictionary into a
// database of dialect d: COMMENT ON every table and column in PostgreSQL;
// in SQLite, edapp_columns made anew with its rows. They are idempotent;
// Migrator.Up runs those it needs in its transaction: none when the database
// holds the dictionary already.
func dictionarySQL(d Dialect) []string {
	if d == Postgres {
		return commentStatements()
	}
	out := []string{"DROP TABLE IF EXISTS " + edappColumnsTable.Name, createTableSQL(edappColumnsTable.Name, edappColumnsTable, d)}
	var rows []string
	for _, r := range columnRows() {
		vals := make([]string, len(r))
		for i, v := range r {
			switch c := edappColumnsTable.Columns[i]; {
			case c.Nullable && v == "":
				vals[i] = "NULL"
			case c.Type == Int || c.Type == Bool:
				vals[i] = v
			default:
				vals[i] = quote(v)
			}
		}
		rows = append(rows, "("+strings.Join(vals, ", ")+")")
	}
	insert := "INSERT INTO edapp_columns (" + strings.Join(columnNames(edappColumnsTable), ", ") + ") VALUES\n" +
		strings.Join(rows, ",\n")
	return append(out, insert)
}

// columnRows are the rows of edapp_columns, in its columns' order, each
// value as text: "" for a NULL unit, 0 or 1 for nullable.
func columnRows() [][]string {
	var rows [][]string
	for _, t := range Dictionary() {
		for i, c := range t.Columns {
			rows = append(rows, []string{t.Name, c.Name, strconv.Itoa(i + 1), c.Type.String(), c.Description, c.Unit,
				strconv.Itoa(boolInt(c.Nullable)), c.Origin.String(), t.Description})
		}
	}
	return rows
}

// columnsCurrent reports whether SQLite's edapp_columns holds the rows
// dictionarySQL writes, in their order: an open then writes nothing, and
// its transaction commits without waiting for the disk. A table of
// another shape, or none, is not current.
func columnsCurrent(ctx context.Context, conn *sql.Conn) (bool, error) {
	var cols []string
	for _, name := range columnNames(edappColumnsTable) {
		cols = append(cols, "COALESCE(CAST("+name+" AS TEXT), '')")
	}
	rows, err := conn.QueryContext(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM "+edappColumnsTable.Name+" ORDER BY rowid")
	if err != nil {
		return false, nil // no such table, or not of this shape: written anew
	}
	defer rows.Close()
	want := columnRows()
	got := make([]string, len(cols))
	ptrs := make([]any, len(cols))
	for i := range got {
		ptrs[i] = &got[i]
	}
	n := 0
	for ; rows.Next(); n++ {
		if err := rows.Scan(ptrs...); err != nil {
			return false, err
		}
		if n >= len(want) || !slices.Equal(got, want[n]) {
			return false, nil
		}
	}
	return n == len(want), rows.Err()
}

// commentStatements are COMMENT ON TABLE and COLUMN for every PostgreSQL
// table; a column's comment ends with its unit and who fills it.
func commentStatements() []string {
	var out []string
	for _, c := range comments() {
		out = append(out, c.statement())
	}
	return out
}

// comment is the comment of a table (column "") or a column.
type comment struct{ table, column, text string }

func (c comment) statement() string {
	if c.column == "" && isView(c.table) {
		return "COMMENT ON VIEW " + c.table + " IS " + quote(c.text)
	}
	if c.column == "" {
		return "COMMENT ON TABLE " + c.table + " IS " + quote(c.text)
	}
	return "COMMENT ON COLUMN " + c.table + "." + c.column + " IS " + quote(c.text)
}

// comments are the comments of every PostgreSQL table and its columns.
func comments() []comment {
	var out []comment
	for _, t := range Dictionary() {
		if t.Name == edappColumnsTable.Name {
			continue
		}
		out = append(out, comment{t.Name, "", t.Description})
		for _, c := range t.Columns {
			out = append(out, comment{t.Name, c.Name, columnComment(c)})
		}
	}
	return out
}

// liveCommentsSQL reads the table, the column ("" for the table's own)
// and the comment ("" for none) of each of the schema's tables and their
// columns.
const liveCommentsSQL = `SELECT c.relname, '', COALESCE(d.description, '')
FROM pg_class c LEFT JOIN pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0
WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'v')
UNION ALL
SELECT c.relname, a.attname, COALESCE(d.description, '')
FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_class'::regclass AND d.objsubid = a.attnum
WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'v')`

// liveComments are the comments the PostgreSQL database holds, by table
// and column ("" for the table's own).
func liveComments(ctx context.Context, conn *sql.Conn) (map[[2]string]string, error) {
	// pg_description joined, as obj_description and col_description
	// read it: they run a query of their own for each of the schema's
	// columns, at each open.
	rows, err := conn.QueryContext(ctx, liveCommentsSQL)
	if err != nil {
		return nil, fmt.Errorf("dbschema: read the comments: %w", err)
	}
	defer rows.Close()
	live := map[[2]string]string{}
	for rows.Next() {
		var table, column, text string
		if err := rows.Scan(&table, &column, &text); err != nil {
			return nil, err
		}
		live[[2]string{table, column}] = text
	}
	return live, rows.Err()
}

// changedComments are the statements that bring the comments of the
// database's tables to the dictionary's: none when they are already (so that a role that
// does not own the tables, which may not comment on them, opens a
// database its owner brought up to date).
func changedComments(ctx context.Context, conn *sql.Conn) ([]string, error) {
	live, err := liveComments(ctx, conn)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range comments() {
		if _, exists := live[[2]string{c.table, ""}]; !exists {
			continue // dropped by hand: Repair makes it again, with its comments
		}
		if live[[2]string{c.table, c.column}] != c.text {
			out = append(out, c.statement())
		}
	}
	return out, nil
}

// columnComment is c's meaning, unit and origin in one line.
func columnComment(c Column) string {
	s := c.Description
	if c.Unit != "" {
		s += " Unit: " + c.Unit + "."
	}
	return s + " Filled by " + c.Origin.String() + "."
}

// quote is s as an SQL string literal. Both dialects read ” as a quote
// (PostgreSQL with standard_conforming_strings, its default since 9.1).
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// describe writes the dictionary through conn, within the migration's
// transaction, where it differs from the database's.
func describe(ctx context.Context, conn *sql.Conn, d Dialect) (err error) {
	var stmts []string
	if d == Postgres {
		if stmts, err = changedComments(ctx, conn); err != nil {
			return err
		}
	} else {
		current, err := columnsCurrent(ctx, conn)
		if err != nil {
			return fmt.Errorf("dbschema: data dictionary: %w", err)
		}
		if !current {
			stmts = dictionarySQL(d)
		}
	}
	if err := execScript(ctx, conn, stmts); err != nil {
		return fmt.Errorf("dbschema: data dictionary: %w", err)
	}
	return nil
}

// Markdown is the data dictionary as a Markdown document: the types, then
// one section per table with a row per column. docs/schema.md is it.
func markdown() []byte {
	var b bytes.Buffer
	b.WriteString(markdownHead)
	for _, t := range Dictionary() {
		key := " Key: " + strings.Join(t.Key, ", ") + "."
		if len(t.Key) == 0 {
			key = ""
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s%s\n\n", t.Name, t.Description, key)
		b.WriteString("| column | type | NULL | unit or scale | filled by | meaning |\n|---|---|---|---|---|---|\n")
		for _, c := range t.Columns {
			null := "no"
			if c.Nullable {
				null = "yes"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", c.Name, c.Type, null, cell(c.Unit), c.Origin, cell(c.Description))
		}
	}
	return b.Bytes()
}

// cell is s fit for a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

const markdownHead = `# Database schema

<!-- Generated from the dbschema package: go test ./export/dbschema -run TestMarkdownMatchesDoc -update. Do not edit. -->

The tables the ` + "`edapp`" + ` command writes (the export, the webhook inbox and the
records either refused), and the views over them, each column with its type, whether it may be NULL,
its unit or scale, which service fills it and what it means. The same text
is in the database: ` + "`COMMENT ON`" + ` in PostgreSQL (` + "`\\d+ TABLE`" + ` in psql, or
` + "`col_description`" + `), the ` + "`edapp_columns`" + ` table in SQLite. Both are refreshed
each time the command opens the database.

"Not verified" marks a unit or scale the service does not document and the
data seen so far does not settle.

| type | PostgreSQL | SQLite |
|---|---|---|
| text | text | TEXT |
| int | bigint | INTEGER |
| real | double precision | REAL |
| bool | boolean | INTEGER, 0 or 1 |
| time | timestamptz | TEXT, ISO 8601 in UTC with microseconds (` + "`2006-01-02T15:04:05.000000Z`" + `) |
| json | jsonb | TEXT holding JSON |
| serial | bigint identity | INTEGER rowid |
`
