package dbschema

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// step is one typed change of a migration. SQL renders it for a dialect;
// the fold of all steps (Tables) is the schema's latest shape. The steps
// are the types of this file.
type step interface {
	// SQL is the step's statements in d, in order.
	SQL(d Dialect) []string
	// apply makes the change to the tables of s.
	apply(s *shape) error
}

// createTable makes a table and its indexes (but the deferred ones).
type createTable struct{ Table Table }

// addColumn adds a nullable column at the end of a table's columns.
type addColumn struct {
	Table  string
	Column Column
}

// rebuildTable replaces a table with a new shape, new key included: it
// copies the Copy columns of every row, fills the new ones with Fill's SQL
// expressions (by column; NULL for the others) and makes the new indexes.
type rebuildTable struct {
	Table Table
	Copy  []string
	Fill  map[string]string
}

// createIndex adds a secondary index to a table.
type createIndex struct {
	Table string
	Index Index
}

// dropIndex removes the secondary index on Columns of a table.
type dropIndex struct {
	Table   string
	Columns []string
}

// postgresOnly is steps that only PostgreSQL needs: SQLite gets no SQL for
// them, and the fold applies them all the same (a hash index, say, which
// SQLite builds as a B-tree).
type postgresOnly struct{ steps []step }

// SQL is the steps' SQL on PostgreSQL; nothing on SQLite.
func (s postgresOnly) SQL(d Dialect) []string {
	if d != Postgres {
		return nil
	}
	var out []string
	for _, st := range s.steps {
		out = append(out, st.SQL(d)...)
	}
	return out
}

func (s postgresOnly) apply(sh *shape) error {
	for _, st := range s.steps {
		if err := st.apply(sh); err != nil {
			return err
		}
	}
	return nil
}

// SQL is the CREATE TABLE statement, then one CREATE INDEX per index.
func (s createTable) SQL(d Dialect) []string {
	return append([]string{createTableSQL(s.Table.Name, s.Table, d)}, indexes(s.Table, d)...)
}

// SQL is one ALTER TABLE statement.
func (s addColumn) SQL(d Dialect) []string {
	return []string{"ALTER TABLE " + s.Table + " ADD COLUMN " + columnDef(s.Column, d)}
}

// SQL makes the new table beside the old one, copies the rows, drops the
// old table and renames the new one in its place.
func (s rebuildTable) SQL(d Dialect) []string {
	t := s.Table
	tmp := t.Name + "_rebuild"
	var into, from []string
	for _, c := range t.Columns {
		switch expr, fill := s.Fill[c.Name]; {
		case slices.Contains(s.Copy, c.Name):
			into, from = append(into, c.Name), append(from, c.Name)
		case fill:
			into, from = append(into, c.Name), append(from, expr)
		}
	}
	out := []string{
		createTableSQL(tmp, t, d),
		"INSERT INTO " + tmp + " (" + strings.Join(into, ", ") + ") SELECT " + strings.Join(from, ", ") + " FROM " + t.Name,
		"DROP TABLE " + t.Name,
		"ALTER TABLE " + tmp + " RENAME TO " + t.Name,
	}
	if d == Postgres {
		// The key's index keeps the name it was made with; a later rebuild
		// of the table would collide with it.
		out = append(out, "ALTER INDEX "+tmp+"_pkey RENAME TO "+t.Name+"_pkey")
	}
	return append(out, indexes(t, d)...)
}

// SQL is one CREATE INDEX statement; none for a deferred index.
func (s createIndex) SQL(d Dialect) []string {
	if s.Index.Deferred {
		return nil
	}
	return []string{createIndexSQL(s.Table, s.Index, d, "")}
}

// SQL is one DROP INDEX statement, which a deferred index not yet built
// does not fail.
func (s dropIndex) SQL(Dialect) []string {
	return []string{"DROP INDEX IF EXISTS " + indexName(s.Table, s.Columns)}
}

// createTable is the CREATE TABLE statement of t under the given name.
func createTableSQL(name string, t Table, d Dialect) string {
	defs := make([]string, 0, len(t.Columns)+1)
	for _, c := range t.Columns {
		defs = append(defs, columnDef(c, d))
	}
	defs = append(defs, "PRIMARY KEY ("+strings.Join(t.Key, ", ")+")")
	return "CREATE TABLE " + name + " (\n  " + strings.Join(defs, ",\n  ") + "\n)"
}

func columnDef(c Column, d Dialect) string {
	def := c.Name + " " + c.Type.SQL(d)
	if !c.Nullable {
		def += " NOT NULL"
	}
	return def
}

// indexes are the CREATE INDEX statements of t's indexes built at once.
func indexes(t Table, d Dialect) []string {
	var out []string
	for _, idx := range t.Indexes {
		if !idx.Deferred {
			out = append(out, createIndexSQL(t.Name, idx, d, ""))
		}
	}
	return out
}

// CreateDeferred is the SQL that builds t's deferred indexes, for after a
// first load; it does nothing for one already built.
func (t Table) CreateDeferred(d Dialect) []string {
	var out []string
	for _, idx := range t.Indexes {
		if idx.Deferred {
			out = append(out, createIndexSQL(t.Name, idx, d, "IF NOT EXISTS "))
		}
	}
	return out
}

// DropForLoad is the SQL that drops the secondary indexes of t that a
// first load into the empty table leaves out (see Index.afterLoad): rows
// load faster into a table without them, and BuildIndexes builds each
// once, after the load. An index already dropped is no error.
func (t Table) DropForLoad(d Dialect) []string {
	var out []string
	for _, idx := range t.Indexes {
		if idx.afterLoad(d) && !idx.Deferred {
			out = append(out, (dropIndex{t.Name, idx.Columns}).SQL(d)...)
		}
	}
	return out
}

// BuildIndexes is the SQL that builds the secondary indexes of t that
// DropForLoad drops, and the deferred ones; it does nothing for an index
// that exists. MissingIndexes leaves out those that exist.
func (t Table) BuildIndexes(d Dialect) []string {
	var out []string
	for _, idx := range t.Indexes {
		if idx.afterLoad(d) {
			out = append(out, createIndexSQL(t.Name, idx, d, "IF NOT EXISTS "))
		}
	}
	return out
}

// MissingIndexes is the SQL of BuildIndexes for the indexes of t that
// conn's database does not have: none once they are built, so a caller
// that runs it at the end of every fetch takes no step for them.
func (t Table) MissingIndexes(ctx context.Context, conn *sql.Conn, d Dialect) ([]string, error) {
	q := `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?`
	if d == Postgres {
		// pg_index itself, not the pg_indexes view, which joins four
		// catalogs: a third of the time, at the end of every fetch.
		q = `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = to_regclass(quote_ident(current_schema()) || '.' || quote_ident($1))`
	}
	have, err := names(ctx, conn, q, t.Name)
	if err != nil {
		return nil, fmt.Errorf("dbschema: list the indexes of %s: %w", t.Name, err)
	}
	var out []string
	for _, idx := range t.Indexes {
		if idx.afterLoad(d) && !have[indexName(t.Name, idx.Columns)] {
			out = append(out, createIndexSQL(t.Name, idx, d, "IF NOT EXISTS "))
		}
	}
	return out, nil
}

// afterLoad reports whether a first load leaves idx out, for BuildIndexes
// to build after it: a deferred index, or one a build after the load makes
// faster than keeping it up to date row by row. Not a unique index (it
// checks the rows as they load), nor a hash index on PostgreSQL, which is
// built by inserting each entry as the load would: its whole cost would
// only move to the end of the run. Nor a partial index, which holds a few
// of the rows: a build after the load would read the whole table for
// them.
func (idx Index) afterLoad(d Dialect) bool {
	return idx.Deferred || !idx.Unique && idx.Where == "" && !(idx.Hash && d == Postgres)
}

func createIndexSQL(table string, idx Index, d Dialect, ifNotExists string) string {
	using := ""
	if idx.Hash && d == Postgres {
		using = "USING hash "
	}
	create := "CREATE INDEX "
	if idx.Unique {
		create = "CREATE UNIQUE INDEX "
	}
	where := ""
	if idx.Where != "" {
		where = " WHERE " + idx.Where
	}
	return create + ifNotExists + indexName(table, idx.Columns) + " ON " + table + " " + using + "(" + strings.Join(idx.Columns, ", ") + ")" + where
}

func indexName(table string, cols []string) string {
	return table + "_" + strings.Join(cols, "_") + "_idx"
}

// shape is the schema's tables at a point of its history, in the order
// they were created.
type shape struct{ tables []Table }

func (s *shape) find(name string) (*Table, error) {
	for i := range s.tables {
		if s.tables[i].Name == name {
			return &s.tables[i], nil
		}
	}
	return nil, fmt.Errorf("no table %s", name)
}

func (s createTable) apply(sh *shape) error {
	if _, err := sh.find(s.Table.Name); err == nil {
		return fmt.Errorf("table %s exists", s.Table.Name)
	}
	if err := s.Table.check(); err != nil {
		return err
	}
	sh.tables = append(sh.tables, s.Table.clone())
	return nil
}

func (s addColumn) apply(sh *shape) error {
	t, err := sh.find(s.Table)
	if err != nil {
		return err
	}
	if _, dup := t.Column(s.Column.Name); dup || !s.Column.Nullable {
		return fmt.Errorf("%s: column %s exists or is not nullable", s.Table, s.Column.Name)
	}
	t.Columns = append(t.Columns, s.Column)
	return nil
}

func (s rebuildTable) apply(sh *shape) error {
	t, err := sh.find(s.Table.Name)
	if err != nil {
		return err
	}
	for _, c := range s.Copy {
		_, inOld := t.Column(c)
		if _, inNew := s.Table.Column(c); !inOld || !inNew {
			return fmt.Errorf("%s: copied column %s is not in both shapes", t.Name, c)
		}
	}
	if err := s.Table.check(); err != nil {
		return err
	}
	*t = s.Table.clone()
	return nil
}

func (s createIndex) apply(sh *shape) error {
	t, err := sh.find(s.Table)
	if err != nil {
		return err
	}
	if t.index(s.Index.Columns) >= 0 {
		return fmt.Errorf("%s: index on %v exists", s.Table, s.Index.Columns)
	}
	idx := s.Index
	idx.Columns = slices.Clone(idx.Columns)
	t.Indexes = append(t.Indexes, idx)
	return t.check()
}

func (s dropIndex) apply(sh *shape) error {
	t, err := sh.find(s.Table)
	if err != nil {
		return err
	}
	i := t.index(s.Columns)
	if i < 0 {
		return fmt.Errorf("%s: no index on %v", s.Table, s.Columns)
	}
	t.Indexes = slices.Delete(t.Indexes, i, i+1)
	return nil
}

// index is the position of the index on cols, or -1.
func (t Table) index(cols []string) int {
	return slices.IndexFunc(t.Indexes, func(idx Index) bool { return slices.Equal(idx.Columns, cols) })
}

// check reports a key or index column t does not have, a nullable key
// column, or a column named twice.
func (t Table) check() error {
	seen := map[string]bool{}
	for _, c := range t.Columns {
		if seen[c.Name] {
			return fmt.Errorf("%s: column %s twice", t.Name, c.Name)
		}
		seen[c.Name] = true
	}
	for _, k := range t.Key {
		if c, ok := t.Column(k); !ok || c.Nullable {
			return fmt.Errorf("%s: key column %s is missing or nullable", t.Name, k)
		}
	}
	for _, idx := range t.Indexes {
		for _, c := range idx.Columns {
			if !seen[c] {
				return fmt.Errorf("%s: index column %s is not a column", t.Name, c)
			}
		}
	}
	return nil
}
