package dbschema

import "fmt"

// Migration 18: edapp_schema.version is a bigint in PostgreSQL, as the
// data dictionary says of an int column; the migrator made it an integer
// before. (The migrator now makes it a bigint; the migration brings the
// databases it made before to that.)

// bigintColumn makes an int column a bigint in PostgreSQL. SQLite's
// INTEGER takes 64 bits already: it gets no SQL.
type bigintColumn struct{ Table, Column string }

// SQL is one ALTER TABLE on PostgreSQL; nothing on SQLite.
func (s bigintColumn) SQL(d Dialect) []string {
	if d != Postgres {
		return nil
	}
	return []string{"ALTER TABLE " + s.Table + " ALTER COLUMN " + s.Column + " TYPE " + Int.SQL(d)}
}

// apply checks the column is an int, in a table of the migrations;
// edapp_schema, which the migrator makes outside them, is in the dictionary.
func (s bigintColumn) apply(sh *shape) error {
	t, err := sh.find(s.Table)
	if err != nil && s.Table == edappSchemaTable.Name {
		t = &edappSchemaTable
	} else if err != nil {
		return err
	}
	if c, ok := t.Column(s.Column); !ok || c.Type != Int {
		return fmt.Errorf("%s: no int column %s", s.Table, s.Column)
	}
	return nil
}
