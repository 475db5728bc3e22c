package dbschema

import (
	"strconv"
	"strings"
)

// Type is a column's type, written per dialect.
type Type int

const (
	Text Type = iota + 1
	Int       // 64-bit integer
	Real      // double precision
	Bool      // boolean; 0 or 1 on SQLite
	Time      // timestamptz; ISO 8601 UTC text with microseconds on SQLite (TimeLayout)
	JSON      // jsonb; JSON text on SQLite
)

// TimeLayout is how a time is written on SQLite: ISO 8601 in UTC with
// microseconds, so that text order is time order.
const TimeLayout = "2006-01-02T15:04:05.000000Z"

const timeLayout = TimeLayout

// SQL is the type's name in d.
func (t Type) SQL(d Dialect) string {
	pg := d == Postgres
	switch t {
	case Int:
		return pick(pg, "BIGINT", "INTEGER")
	case Real:
		return pick(pg, "DOUBLE PRECISION", "REAL")
	case Bool:
		return pick(pg, "BOOLEAN", "INTEGER")
	case Time:
		return pick(pg, "TIMESTAMPTZ", "TEXT")
	case JSON:
		return pick(pg, "JSONB", "TEXT")
	}
	return "TEXT"
}

func pick(pg bool, a, b string) string {
	if pg {
		return a
	}
	return b
}

// Column is one column of a table.
type Column struct {
	Name string
	Type Type
}

// Table is a table of the schema, as the latest migration leaves it.
type Table struct {
	Name    string
	Columns []Column
	Key     []string   // the primary key
	Indexes [][]string // one index per entry
}

// Column returns the named column, or false.
func (t Table) Column(name string) (Column, bool) {
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// create is the DDL that makes t and its indexes.
func (t Table) create(d Dialect) []string {
	cols := make([]string, 0, len(t.Columns)+1)
	for _, c := range t.Columns {
		def := c.Name + " " + c.Type.SQL(d)
		if contains(t.Key, c.Name) {
			def += " NOT NULL"
		}
		cols = append(cols, def)
	}
	cols = append(cols, "PRIMARY KEY ("+strings.Join(t.Key, ", ")+")")
	out := []string{"CREATE TABLE " + t.Name + " (\n  " + strings.Join(cols, ",\n  ") + "\n)"}
	for _, idx := range t.Indexes {
		out = append(out, "CREATE INDEX "+t.Name+"_"+strings.Join(idx, "_")+"_idx ON "+t.Name+" ("+strings.Join(idx, ", ")+")")
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// cols parses a compact column list: "name type, name type, ...", where
// type is text, int, real, bool, time or json.
func cols(spec string) []Column {
	types := map[string]Type{"text": Text, "int": Int, "real": Real, "bool": Bool, "time": Time, "json": JSON}
	var out []Column
	for _, f := range strings.Split(spec, ",") {
		name, typ, _ := strings.Cut(strings.TrimSpace(f), " ")
		t, ok := types[typ]
		if !ok {
			panic("dbschema: bad column " + strconv.Quote(f)) // a typo in this package, found by its tests
		}
		out = append(out, Column{name, t})
	}
	return out
}

// Rebind rewrites the ? placeholders of query as $1, $2, ... for
// PostgreSQL; SQLite takes ? as it is. The query must hold no ? in a
// literal.
func Rebind(d Dialect, query string) string {
	if d != Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func rebind(d Dialect, q string) string { return Rebind(d, q) }
