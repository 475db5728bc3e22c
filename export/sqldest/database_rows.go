package sqldest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/internal/dbwrite"
	"github.com/edapp-go/edapp/export/internal/recordtype"
)

// table is a kind's table, with the record field of each column.
type table struct {
	name   string
	cols   []dbschema.Column
	fields []string // the JSON field of each column; "" for raw, edapp_run and source
	key    []int    // indexes into cols
	// indexed are the text columns with a secondary index, out of the
	// key: a value over dbwrite.MaxIndexedBytes is stored as NULL.
	indexed []int
	sql     map[int]string
	// leavesSame: every key column is text, so the keys a fetch saw can be
	// recorded (edapp_export_seen), and the table has edapp_digest, so an
	// upsert leaves a row whose values are unchanged as it is, edapp_run
	// included.
	leavesSame bool
	digest     int // the index of edapp_digest in cols; -1 for none
	// plans is how a record of each type fills the columns
	// (reflect.Type -> []cellPlan; see cellsOf).
	plans sync.Map
}

// maxParams bounds the placeholders of one INSERT (SQLite allows 32766,
// PostgreSQL 65535).
const maxParams = 30000

// sqliteParams is about how many placeholders a SQLite statement takes
// (see insertRows).
const sqliteParams = 1000

// rowMaker is a source's tables, read from the schema once each, and how
// a record becomes a row of one of them, or a reject: it holds no
// connection, and the writers share it.
type rowMaker struct {
	d      Dialect
	source string
	run    int64 // this run's number, which the rejects carry (set when the export takes the database)
	tables map[string]*table
}

func newRowMaker(d Dialect, source string) *rowMaker {
	return &rowMaker{d: d, source: source, tables: map[string]*table{}}
}

// table returns k's table, checking that the schema has a column for
// each of its fields and a field for each column.
func (m *rowMaker) table(k *export.Kind) (*table, error) {
	if t := m.tables[k.Name]; t != nil {
		return t, nil
	}
	def, ok := dbschema.Lookup(k.Name)
	if !ok {
		return nil, fmt.Errorf("export: no table for kind %s", k.Name)
	}
	byCol := map[string]string{}
	for _, f := range k.Columns {
		byCol[snake(f)] = f
	}
	t := &table{name: def.Name, cols: def.Columns, sql: map[int]string{}}
	for i, c := range def.Columns {
		f, ok := byCol[c.Name]
		if !ok && c.Origin&m.origin() != 0 && !slices.Contains(engineColumns, c.Name) {
			return nil, fmt.Errorf("export: column %s.%s has no field", def.Name, c.Name)
		}
		t.fields = append(t.fields, f)
		switch {
		case slices.Contains(def.Key, c.Name):
			t.key = append(t.key, i)
		case c.Type == dbschema.Text && slices.ContainsFunc(def.Indexes, func(idx dbschema.Index) bool { return slices.Contains(idx.Columns, c.Name) }):
			t.indexed = append(t.indexed, i)
		}
	}
	t.setDigest()
	m.tables[k.Name] = t
	return t, nil
}

// engineColumns are the columns of a kind's table that no field fills.
var engineColumns = []string{"raw", "edapp_run", "source", "edapp_digest"}

// setDigest finds t's edapp_digest, and whether t leavesSame.
func (t *table) setDigest() {
	t.digest = slices.IndexFunc(t.cols, func(c dbschema.Column) bool { return c.Name == "edapp_digest" })
	t.leavesSame = t.digest >= 0 && !slices.ContainsFunc(t.key, func(i int) bool { return t.cols[i].Type != dbschema.Text })
}

// origin is the Origin of the columns the source fills: a column only the
// other source fills is NULL in this one's rows.
func (m *rowMaker) origin() dbschema.Origin {
	if m.source == SourceSafetyCulture {
		return dbschema.FromSafetyCulture
	}
	return dbschema.FromEdApp
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

// upsertSQL is the statement that upserts n rows into t; when plain
// (writeState.plain), that inserts them without a conflict clause.
func (m *rowMaker) upsertSQL(t *table, n int, plain bool) string {
	key := n
	if plain {
		key = -n
	}
	if s, ok := t.sql[key]; ok {
		return s
	}
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(t.cols)), ", ") + ")"
	rows := strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
	s := insertVerb(m.d) + " INTO " + t.name + " (" + strings.Join(columnNames(t), ", ") + ") VALUES " + rows
	if key > 0 {
		s += onConflict(m.d, t)
	}
	t.sql[key] = rebind(m.d, s)
	return t.sql[key]
}

// insertVerb begins a statement that writes rows. On SQLite a statement
// of many rows that a constraint may stop (ABORT, the default) keeps a
// journal of every page it changes, so as to undo only itself; OR FAIL
// keeps none. A group that fails is rolled back whole (and a row written
// alone has a savepoint of its own), so undoing the statement bought
// nothing, and its journal was 7% of a first run's CPU, on the writer.
func insertVerb(d Dialect) string {
	if d == SQLite {
		return "INSERT OR FAIL"
	}
	return "INSERT"
}

// onConflict is the clause that makes an insert into t an upsert. A row
// whose values are unchanged is left as it is: in a table that leavesSame
// by its digest, edapp_run included; in the others (the incremental kinds'
// tables, which have neither) by its values, so that a re-run does not
// rewrite the rows of its overlap, nor their index entries.
func onConflict(d Dialect, t *table) string {
	var set, old, now []string
	for i, c := range t.cols {
		if !isKey(t, i) {
			set = append(set, c.Name+" = excluded."+c.Name)
			old, now = append(old, t.name+"."+c.Name), append(now, "excluded."+c.Name)
		}
	}
	s := " ON CONFLICT (" + strings.Join(keyNames(t), ", ") + ") DO UPDATE SET " + strings.Join(set, ", ")
	differs := " IS NOT "
	if d == Postgres {
		differs = " IS DISTINCT FROM "
	}
	if t.leavesSame {
		return s + " WHERE " + t.name + ".edapp_digest" + differs + "excluded.edapp_digest"
	}
	return s + " WHERE (" + strings.Join(old, ", ") + ")" + differs + "(" + strings.Join(now, ", ") + ")"
}

func columnNames(t *table) []string {
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.Name
	}
	return names
}

func keyNames(t *table) []string {
	var keys []string
	for _, i := range t.key {
		keys = append(keys, t.cols[i].Name)
	}
	return keys
}

func isKey(t *table, i int) bool {
	for _, k := range t.key {
		if k == i {
			return true
		}
	}
	return false
}

// chunksAhead is how many statements' rows the goroutine that builds them
// may have ready before the writer takes them: enough that a writer never
// waits for a builder the scheduler runs late, behind the fetch's
// decoding (with one, first runs were slower), and never more than a
// group's rows.
const chunksAhead = 32

// rowBuilders is how many goroutines at most turn one write's records
// into rows, a statement's worth each: building a row (its JSON, its
// columns, its digest) costs more than comparing or sending it, and at
// the end of a walk whose pages came at once the rows of its last group
// are all that is left to do.
var rowBuilders = min(runtime.GOMAXPROCS(0), 4)

// upsert writes records into t, and returns how many it rejected.
// Goroutines turn the records into rows, a statement's worth each
// (buildRows), while this one writes the rows before them. A record the
// service lists twice in one walk never gets here twice: the SDK's
// iterators yield it once, the first time (edapp's walk key). A key
// repeated among records (a kind the walk does not key) keeps its last
// record: within a statement at its first place (one statement may not
// touch a row twice), across statements by writing it last, and in a bulk
// load by the merge.
func (x *groupWriter) upsert(ctx context.Context, tx *sql.Tx, t *table, records []export.Record, run int64, w *writeState) (n batchCounts, err error) {
	u := x.upserter(tx, t, w)
	defer u.close()
	stop := make(chan struct{})
	defer close(stop)
	chunks := x.rows.buildRows(t, records, run, u.per, rowBuilders, stop)
	n.records, err = u.write(ctx, chunks)
	n.same, n.written = u.same, int(u.affected)
	return n, err
}

// buildRows is the rows of records in t, per records at a time, in order,
// built by up to builders goroutines and at most chunksAhead ahead of the
// reader, until stop closes.
func (m *rowMaker) buildRows(t *table, records []export.Record, run int64, per, builders int, stop <-chan struct{}) <-chan rowChunk {
	pending := make(chan chan rowChunk, chunksAhead)
	go func() {
		defer close(pending)
		building := make(chan struct{}, builders)
		for len(records) > 0 {
			part := records[:min(per, len(records))]
			records = records[len(part):]
			c := make(chan rowChunk, 1)
			select {
			case pending <- c:
			case <-stop:
				return
			}
			building <- struct{}{}
			go func() {
				defer func() { <-building }()
				c <- m.rowsOf(t, part, run)
			}()
		}
	}()
	chunks := make(chan rowChunk, 1)
	go func() {
		defer close(chunks)
		for c := range pending {
			select {
			case chunks <- <-c:
			case <-stop:
				return
			}
		}
	}()
	return chunks
}

// write writes the rows of chunks, by statements or through the bulk
// loader (rowLoader), and returns how many records it rejected.
func (u *upserter) write(ctx context.Context, chunks <-chan rowChunk) (int, error) {
	if err := u.x.loader.writeRows(ctx, u, chunks); err != nil {
		return 0, err
	}
	return u.flush(ctx)
}

// execChunks writes the rows of chunks by multi-row upserts.
func (u *upserter) execChunks(ctx context.Context, chunks <-chan rowChunk) error {
	for c := range chunks {
		if c.err != nil {
			return c.err
		}
		u.rejects = append(u.rejects, c.rejects...)
		u.accept(c.rows)
		for rows := u.changed(c.rows); len(rows) > 0; {
			n := min(u.per, len(rows))
			if err := u.exec(ctx, rows[:n]); err != nil {
				return err
			}
			rows = rows[n:]
		}
	}
	return nil
}

// rowChunk is one statement's rows and the records refused before any
// statement, or the error that stopped them.
type rowChunk struct {
	rows    [][]any
	rejects []dbwrite.Reject
	err     error
}

// rowsOf is records' rows in t, a key repeated keeping its last record
// at its first place. A record without a usable key is rejected.
func (m *rowMaker) rowsOf(t *table, records []export.Record, run int64) rowChunk {
	var c rowChunk
	c.rows = make([][]any, 0, len(records))
	at := map[string]int{}
	for _, r := range records {
		row, err := m.row(t, r, run)
		if err != nil {
			return rowChunk{err: err}
		}
		if why := keyProblem(t, row); why != "" {
			c.rejects = append(c.rejects, m.reject(t, row, why))
			continue
		}
		boundIndexed(t, row)
		k := rowKey(t, row)
		if i, dup := at[k]; dup {
			c.rows[i] = row
			continue
		}
		at[k] = len(c.rows)
		c.rows = append(c.rows, row)
	}
	return c
}

// keyProblem says why row's key is not usable: a key column empty or
// NULL (an id that was not a string or number), or the key columns over
// dbwrite.MaxKeyBytes together; "" when it is.
func keyProblem(t *table, row []any) string {
	size := 0
	for _, i := range t.key {
		switch v := row[i].(type) {
		case nil:
			return "no usable identity: " + t.cols[i].Name + " is missing"
		case string:
			if v == "" {
				return "no usable identity: " + t.cols[i].Name + " is empty or not a string"
			}
			size += len(v)
		}
	}
	if size > dbwrite.MaxKeyBytes {
		return fmt.Sprintf("the key columns hold %d bytes, over the bound of %d", size, dbwrite.MaxKeyBytes)
	}
	return ""
}

// boundIndexed stores NULL for a value over dbwrite.MaxIndexedBytes in
// an indexed column, which a B-tree index would refuse with the whole
// row: the value costs only its column, and the raw column keeps it.
func boundIndexed(t *table, row []any) {
	for _, i := range t.indexed {
		if s, ok := row[i].(string); ok && len(s) > dbwrite.MaxIndexedBytes {
			row[i] = nil
		}
	}
}

// reject is row of t kept in the rejects table for why: its key as the
// identity, its raw column (or its columns as a JSON object) as raw.
func (m *rowMaker) reject(t *table, row []any, why string) dbwrite.Reject {
	r := dbwrite.Reject{Source: m.source, Kind: t.name, Reason: why, Run: m.run, At: time.Now()}
	if !strings.HasPrefix(why, "no usable identity") {
		r.Identity = t.identity(row)
	}
	cols := map[string]any{}
	for i, c := range t.cols {
		switch c.Name {
		case "raw":
			r.Raw, _ = row[i].(string)
			return r
		case "edapp_digest":
			continue
		}
		cols[c.Name] = row[i]
	}
	b, _ := json.Marshal(cols)
	r.Raw = string(b)
	return r
}

// refused is r, a record of t the SDK could not decode at all, kept in
// the rejects table: no identity, its bytes as sent (within
// edapp.MaxDroppedRecordBytes, the reason saying when cut).
func (m *rowMaker) refused(t *table, r edapp.DroppedRecord) dbwrite.Reject {
	why := "could not be decoded (" + r.Path + ")"
	if len(r.Raw) < r.Size {
		why += fmt.Sprintf("; its first %d of %d bytes kept", len(r.Raw), r.Size)
	}
	return dbwrite.Reject{Source: m.source, Kind: t.name, Reason: why, Raw: dbwrite.ValidUTF8(string(r.Raw)), Run: m.run, At: time.Now()}
}

// identity is row's key as the rejects table names it: its key columns
// but source (a column of its own there), joined by " / ".
func (t *table) identity(row []any) string {
	key := make([]string, 0, len(t.key))
	for _, i := range t.key {
		if t.cols[i].Name != "source" {
			key = append(key, fmt.Sprint(row[i]))
		}
	}
	return strings.Join(key, " / ")
}

// accept keeps the record keys of rows, about to be written, that the
// rejects table holds from an earlier refusal, for the group's write to
// clear (see writeBatch).
func (u *upserter) accept(rows [][]any) {
	if len(u.held) == 0 {
		return
	}
	for _, row := range rows {
		if k := dbwrite.RecordKey(u.t.identity(row), ""); u.held[k] {
			u.accepted = append(u.accepted, k)
		}
	}
}

// insertRows upserts rows whose keys are distinct, and returns how many
// it rejected, rejects (refused before) included.
func (x *groupWriter) insertRows(ctx context.Context, tx *sql.Tx, t *table, rows [][]any, rejects []dbwrite.Reject, w *writeState) (int, error) {
	u := x.upserter(tx, t, w)
	defer u.close()
	chunks := make(chan rowChunk, 1)
	chunks <- rowChunk{rows: rows, rejects: rejects}
	close(chunks)
	return u.write(ctx, chunks)
}

// upserter runs multi-row upserts into one table within one transaction.
// A statement of the full per rows is prepared once (the SQLite driver
// then runs it again without parsing it); a shorter one, at the end of a
// batch, is run as it comes. On SQLite a statement takes about
// sqliteParams placeholders: larger ones leave more of a batch to the
// last, unprepared statement. PostgreSQL takes hundreds of rows, saving
// round trips.
type upserter struct {
	x        *groupWriter
	w        *writeState // the write under way
	tx       *sql.Tx
	t        *table
	per      int
	stmt     *sql.Stmt
	rejects  []dbwrite.Reject // for the rejects table, by flush
	held     map[string]bool  // the record keys of the table's rejects when the kind began
	accepted []string         // the keys of held whose records are being written, for flush
	seen     [][]string       // the keys of the rows written or left out, for edapp_export_seen, by flush
	known    *knownRows       // the table's rows when the walk began, when compares (see changed)
	compares bool             // the write leaves out the rows known holds unchanged
	same     int              // the rows left out as unchanged
	// affected is the rows the statements inserted or changed, as the
	// database counts them.
	affected int64
}

func (x *groupWriter) upserter(tx *sql.Tx, t *table, w *writeState) *upserter {
	per := max(1, min(500, maxParams/len(t.cols)))
	if x.d == SQLite {
		per = max(1, sqliteParams/len(t.cols))
	}
	known, compares := w.known[t.name]
	return &upserter{x: x, w: w, tx: tx, t: t, per: per, known: known, compares: compares, held: w.held[t.name]}
}

func (u *upserter) exec(ctx context.Context, rows [][]any) error {
	if u.w.rowByRow {
		return u.execEach(ctx, rows)
	}
	args := make([]any, 0, len(rows)*len(u.t.cols))
	for _, row := range rows {
		args = append(args, row...)
	}
	dbwrite.CleanArgs(u.x.d, args, u.isJSON)
	if len(rows) != u.per {
		return u.execCounted(ctx, u.x.rows.upsertSQL(u.t, len(rows), u.w.plain()), args...)
	}
	if u.stmt == nil {
		stmt, err := u.tx.PrepareContext(ctx, u.x.rows.upsertSQL(u.t, u.per, u.w.plain()))
		if err != nil {
			return err
		}
		u.stmt = stmt
	}
	res, err := u.stmt.ExecContext(ctx, args...)
	return u.count(res, err)
}

// execCounted runs a statement that writes rows of the table, counting
// the rows it inserted or changed.
func (u *upserter) execCounted(ctx context.Context, query string, args ...any) error {
	res, err := u.tx.ExecContext(ctx, query, args...)
	return u.count(res, err)
}

// count adds the rows a statement inserted or changed to affected: an
// upsert that found a row unchanged (its digest, or its values, the same)
// leaves it as it is, and the database does not count it.
func (u *upserter) count(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	u.affected += n
	return nil
}

// execEach upserts each row alone under a savepoint, so that a row the
// database refuses for good (a data error) is rolled back alone and
// rejected; any other error ends the transaction.
func (u *upserter) execEach(ctx context.Context, rows [][]any) error {
	for _, row := range rows {
		if _, err := u.tx.ExecContext(ctx, "SAVEPOINT edapp_row"); err != nil {
			return err
		}
		args := slices.Clone(row)
		dbwrite.CleanArgs(u.x.d, args, u.isJSON)
		err := u.execCounted(ctx, u.x.rows.upsertSQL(u.t, 1, u.w.plain()), args...)
		if err != nil && !dbwrite.IsDataError(err) {
			return err
		}
		end := "RELEASE SAVEPOINT edapp_row"
		if err != nil {
			end = "ROLLBACK TO SAVEPOINT edapp_row"
			u.rejects = append(u.rejects, u.x.rows.reject(u.t, row, err.Error()))
		}
		if _, err := u.tx.ExecContext(ctx, end); err != nil {
			return err
		}
	}
	return nil
}

// flush hands the rows rejected so far to the group's write, which keeps
// them last (see writeBatch), and writes the keys seen to
// edapp_export_seen; it returns how many rows were rejected.
func (u *upserter) flush(ctx context.Context) (int, error) {
	n := len(u.rejects)
	u.w.rejects = append(u.w.rejects, u.rejects...)
	u.rejects = nil
	if len(u.accepted) > 0 {
		u.w.accepted[u.t.name] = append(u.w.accepted[u.t.name], u.accepted...)
		u.accepted = nil
	}
	return n, u.recordSeen(ctx)
}

// isJSON reports whether the i-th value of a row, or of rows laid end to
// end, is of a JSON column.
func (u *upserter) isJSON(i int) bool { return u.t.cols[i%len(u.t.cols)].Type == dbschema.JSON }

func (u *upserter) close() {
	if u.stmt != nil {
		u.stmt.Close()
	}
}

// rowKey is row's key columns, each followed by U+001F: a string as it
// is, a time in RFC 3339, another value as fmt prints it.
func rowKey(t *table, row []any) string {
	b := make([]byte, 0, 64)
	for _, i := range t.key {
		switch v := row[i].(type) {
		case string:
			b = append(b, v...)
		case time.Time:
			b = v.AppendFormat(b, time.RFC3339Nano)
		default:
			b = fmt.Append(b, v)
		}
		b = append(b, '\x1f')
	}
	return string(b)
}

// row is r's values in t's column order.
func (m *rowMaker) row(t *table, r export.Record, run int64) ([]any, error) {
	rv := reflect.ValueOf(r.Value())
	cells := t.cellsOf(rv.Type())
	row := make([]any, len(t.cols))
	for i, c := range cells {
		switch c.role {
		case cellRaw:
			b, err := r.JSON()
			if err != nil {
				return nil, err
			}
			row[i] = string(b)
		case cellRun:
			row[i] = run
		case cellSource:
			row[i] = m.source
		case cellDigest: // below, of the others
		case cellField:
			row[i] = m.fieldValue(r, rv.FieldByIndex(c.index), t.fields[i], t.cols[i].Type)
		default:
			row[i] = m.value(r, t.fields[i], t.cols[i].Type)
		}
		if c.role >= cellField && t.cols[i].ZeroIsNone&m.origin() != 0 && isZero(row[i]) {
			row[i] = nil // this source's 0 is a value it did not send
		}
	}
	t.putDigest(row)
	return row, nil
}

// cellRole is what fills a column of a table's row.
type cellRole int

const (
	cellRaw    cellRole = iota // the record's JSON
	cellRun                    // the run's number
	cellSource                 // the source's name
	cellDigest                 // the row's digest, of the others
	cellField                  // a field of the record struct, at index
	cellOther                  // a field the struct does not have: kept as sent (see value)
)

// cellPlan is how one column of a table's row is filled from a record of
// one type.
type cellPlan struct {
	role  cellRole
	index []int // cellField's
}

// cellsOf is how t's columns are filled from a record of type rt, worked
// out the first time a record of that type comes (the writers share t).
func (t *table) cellsOf(rt reflect.Type) []cellPlan {
	if p, ok := t.plans.Load(rt); ok {
		return p.([]cellPlan)
	}
	fields := recordtype.Of(rt).ByName
	plan := make([]cellPlan, len(t.cols))
	for i, c := range t.cols {
		switch c.Name {
		case "raw":
			plan[i].role = cellRaw
		case "edapp_run":
			plan[i].role = cellRun
		case "source":
			plan[i].role = cellSource
		case "edapp_digest":
			plan[i].role = cellDigest
		default:
			plan[i].role = cellOther
			if idx, ok := fields[t.fields[i]]; ok {
				plan[i] = cellPlan{role: cellField, index: idx}
			}
		}
	}
	t.plans.Store(rt, plan)
	return plan
}

// isZero reports whether v, a column's value, is the number 0.
func isZero(v any) bool {
	switch n := v.(type) {
	case float64:
		return n == 0
	case int64:
		return n == 0
	}
	return false
}

// value is the named field of r as a column of type typ holds it; nil
// for an absent value.
func (m *rowMaker) value(r export.Record, name string, typ dbschema.Type) any {
	f, ok := r.Field(name)
	if !ok {
		// A field the SDK does not know: kept as sent, as text.
		if s := r.Cell(name); s != "" {
			return s
		}
		return nil
	}
	return m.fieldValue(r, f, name, typ)
}

// fieldValue is f, r's field of the named JSON field, as a column of
// type typ holds it; nil for an absent value.
func (m *rowMaker) fieldValue(r export.Record, f reflect.Value, name string, typ dbschema.Type) any {
	if f.Kind() == reflect.Pointer {
		if f.IsNil() {
			return nil
		}
		f = f.Elem()
	}
	switch typ {
	case dbschema.Time:
		if f.Type() == reflect.TypeFor[edapp.Time]() {
			return timeArg(m.d, f.Interface().(edapp.Time).Time)
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
		return jsonValue(f)
	case dbschema.Text:
		if f.Kind() == reflect.String {
			return f.String()
		}
	}
	return r.Cell(name)
}

// jsonValue is f as a JSON column's text: NULL for a nil list or map, or
// for a value encoding/json refuses.
func jsonValue(f reflect.Value) any {
	if (f.Kind() == reflect.Slice || f.Kind() == reflect.Map) && f.IsNil() {
		return nil
	}
	b, err := json.Marshal(f.Interface())
	if err != nil {
		return nil
	}
	return string(b)
}

// customFieldsTable holds a row per user and custom field; its columns
// are source, user_id, name, value, edapp_run and edapp_digest, in that order (see
// TestCustomFieldsTableShape).
var customFieldsTable, _ = dbschema.Lookup("user_custom_fields")

// customFieldsTable is the users' custom fields' table, made once.
func (m *rowMaker) customFieldsTable() *table {
	t := m.tables[customFieldsTable.Name]
	if t == nil {
		t = &table{name: customFieldsTable.Name, cols: customFieldsTable.Columns, key: []int{1, 2, 0}, sql: map[int]string{}}
		t.setDigest()
		m.tables[t.name] = t
	}
	return t
}

// upsertCustomFields writes a row per user and custom field, and returns
// how many it rejected.
func (x *groupWriter) upsertCustomFields(ctx context.Context, tx *sql.Tx, t *table, users []export.Record, run int64, w *writeState) (int, error) {
	var rows [][]any
	var rejects []dbwrite.Reject
	at := map[[2]string]int{} // a user listed twice keeps its last fields
	for _, r := range users {
		u, ok := r.Value().(edapp.User)
		if !ok || u.ID == "" || len(u.ID) > dbwrite.MaxKeyBytes {
			continue // a user without a usable id is rejected with its record
		}
		for name, value := range u.CustomFields {
			row := []any{x.source, u.ID, name, value, run, nil}
			t.putDigest(row)
			if why := keyProblem(t, row); why != "" {
				rejects = append(rejects, x.rows.reject(t, row, why))
				continue
			}
			if i, dup := at[[2]string{u.ID, name}]; dup {
				rows[i] = row
				continue
			}
			at[[2]string{u.ID, name}] = len(rows)
			rows = append(rows, row)
		}
	}
	return x.insertRows(ctx, tx, t, rows, rejects, w)
}
