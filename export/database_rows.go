package export

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/dbschema"
)

// table is a kind's table, with the record field of each column.
type table struct {
	name   string
	cols   []dbschema.Column
	fields []string // the JSON field of each column; "" for raw and edapp_run
	key    []int    // indexes into cols
	sql    map[int]string
}

// maxParams bounds the placeholders of one INSERT (SQLite allows 32766,
// PostgreSQL 65535).
const maxParams = 30000

// sqliteParams is about how many placeholders a SQLite statement takes
// (see insertRows).
const sqliteParams = 1000

// table returns k's table, checking that the schema has a column for
// each of its fields and a field for each column.
func (x *Database) table(k *Kind) (*table, error) {
	if t := x.tables[k.Name]; t != nil {
		return t, nil
	}
	var def dbschema.Table
	for _, d := range dbschema.ExportTables() {
		if d.Name == k.Name {
			def = d
		}
	}
	if def.Name == "" {
		return nil, fmt.Errorf("export: no table for kind %s", k.Name)
	}
	byCol := map[string]string{}
	for _, f := range k.Columns {
		byCol[snake(f)] = f
	}
	t := &table{name: def.Name, cols: def.Columns, sql: map[int]string{}}
	for i, c := range def.Columns {
		f, ok := byCol[c.Name]
		if !ok && c.Name != "raw" && c.Name != "edapp_run" {
			return nil, fmt.Errorf("export: column %s.%s has no field", def.Name, c.Name)
		}
		t.fields = append(t.fields, f)
		for _, kc := range def.Key {
			if kc == c.Name {
				t.key = append(t.key, i)
			}
		}
	}
	x.tables[k.Name] = t
	return t, nil
}

// snake is a JSON field name in snake_case: userId is user_id.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// upsertSQL is the statement that upserts n rows into t.
func (x *Database) upsertSQL(t *table, n int) string {
	if s, ok := t.sql[n]; ok {
		return s
	}
	names := make([]string, len(t.cols))
	var set []string
	for i, c := range t.cols {
		names[i] = c.Name
		if !isKey(t, i) {
			set = append(set, c.Name+" = excluded."+c.Name)
		}
	}
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(t.cols)), ", ") + ")"
	rows := strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
	var keys []string
	for _, i := range t.key {
		keys = append(keys, t.cols[i].Name)
	}
	s := x.q("INSERT INTO " + t.name + " (" + strings.Join(names, ", ") + ") VALUES " + rows +
		" ON CONFLICT (" + strings.Join(keys, ", ") + ") DO UPDATE SET " + strings.Join(set, ", "))
	t.sql[n] = s
	return s
}

func isKey(t *table, i int) bool {
	for _, k := range t.key {
		if k == i {
			return true
		}
	}
	return false
}

// upsert writes records into t with multi-row statements. A key repeated
// within the batch keeps its last record: one statement may not touch a
// row twice.
func (x *Database) upsert(ctx context.Context, tx *sql.Tx, t *table, records []Record, run int64) error {
	rows := make([][]any, 0, len(records))
	at := map[string]int{}
	for _, r := range records {
		row, err := x.row(t, r, run)
		if err != nil {
			return err
		}
		k := rowKey(t, row)
		if i, dup := at[k]; dup {
			rows[i] = row
			continue
		}
		at[k] = len(rows)
		rows = append(rows, row)
	}
	return x.insertRows(ctx, tx, t, rows)
}

// insertRows upserts rows, many to a statement, prepared once per batch
// (the SQLite driver then runs it again without parsing it). On SQLite a
// statement takes about a thousand placeholders: larger ones leave more
// of a batch to the last, unprepared statement; PostgreSQL takes
// hundreds of rows, saving round trips.
func (x *Database) insertRows(ctx context.Context, tx *sql.Tx, t *table, rows [][]any) error {
	per := max(1, min(500, maxParams/len(t.cols)))
	if x.d == SQLite {
		per = max(1, sqliteParams/len(t.cols))
	}
	var stmt *sql.Stmt
	defer func() {
		if stmt != nil {
			stmt.Close()
		}
	}()
	for len(rows) > 0 {
		n := min(per, len(rows))
		args := make([]any, 0, n*len(t.cols))
		for _, row := range rows[:n] {
			args = append(args, row...)
		}
		var err error
		switch {
		case n == per && stmt == nil:
			if stmt, err = tx.PrepareContext(ctx, x.upsertSQL(t, n)); err != nil {
				return err
			}
			fallthrough
		case n == per:
			_, err = stmt.ExecContext(ctx, args...)
		default:
			_, err = tx.ExecContext(ctx, x.upsertSQL(t, n), args...)
		}
		if err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

func rowKey(t *table, row []any) string {
	var b strings.Builder
	for _, i := range t.key {
		fmt.Fprint(&b, row[i], "\x1f")
	}
	return b.String()
}

// row is r's values in t's column order.
func (x *Database) row(t *table, r Record, run int64) ([]any, error) {
	row := make([]any, len(t.cols))
	for i, c := range t.cols {
		switch c.Name {
		case "raw":
			b, err := r.JSON()
			if err != nil {
				return nil, err
			}
			row[i] = string(b)
		case "edapp_run":
			row[i] = run
		default:
			row[i] = x.value(r, t.fields[i], c.Type)
		}
	}
	return row, nil
}

// value is the named field of r as a column of type typ holds it; nil
// for an absent value.
func (x *Database) value(r Record, name string, typ dbschema.Type) any {
	f, ok := r.field(name)
	if !ok {
		// A field the SDK does not know: kept as sent, as text.
		if s := rawCell(r.extra()[name]); s != "" {
			return s
		}
		return nil
	}
	if f.Kind() == reflect.Pointer {
		if f.IsNil() {
			return nil
		}
		f = f.Elem()
	}
	switch typ {
	case dbschema.Time:
		if f.Type() == timeType {
			return x.timeArg(f.Interface().(edapp.Time).Time)
		}
	case dbschema.Int:
		if f.CanInt() {
			return f.Int()
		}
	case dbschema.Real:
		if f.CanFloat() {
			return f.Float()
		}
		if f.CanInt() {
			return float64(f.Int())
		}
	case dbschema.Bool:
		if f.Kind() == reflect.Bool {
			return f.Bool()
		}
	case dbschema.JSON:
		if (f.Kind() == reflect.Slice || f.Kind() == reflect.Map) && f.IsNil() {
			return nil
		}
		b, err := json.Marshal(f.Interface())
		if err != nil {
			return nil
		}
		return string(b)
	case dbschema.Text:
		if f.Kind() == reflect.String {
			return f.String()
		}
	}
	return r.Cell(name)
}

// upsertCustomFields writes a row per user and custom field.
func (x *Database) upsertCustomFields(ctx context.Context, tx *sql.Tx, users []Record, run int64) error {
	t := &table{name: "user_custom_fields", sql: map[int]string{}, key: []int{0, 1},
		cols: []dbschema.Column{{Name: "user_id", Type: dbschema.Text}, {Name: "name", Type: dbschema.Text}, {Name: "value", Type: dbschema.Text}, {Name: "edapp_run", Type: dbschema.Int}}}
	if cached := x.tables[t.name]; cached != nil {
		t = cached
	}
	x.tables[t.name] = t
	var rows [][]any
	at := map[[2]string]int{} // a user listed twice keeps its last fields
	for _, r := range users {
		u, ok := r.v.Interface().(edapp.User)
		if !ok {
			continue
		}
		for name, value := range u.CustomFields {
			row := []any{u.ID, name, value, run}
			if i, dup := at[[2]string{u.ID, name}]; dup {
				rows[i] = row
				continue
			}
			at[[2]string{u.ID, name}] = len(rows)
			rows = append(rows, row)
		}
	}
	return x.insertRows(ctx, tx, t, rows)
}
