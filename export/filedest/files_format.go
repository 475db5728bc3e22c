package filedest

import (
	"crypto/sha256"
	"encoding/csv"
	"fmt"
	"io"
	"strings"

	"github.com/edapp-go/edapp/export"
)

// recordWriter writes records in one format.
type recordWriter interface {
	write(r export.Record) error
	flush() error
}

func newRecordWriter(w io.Writer, format string, columns []string) (recordWriter, error) {
	switch format {
	case "csv":
		cw := csv.NewWriter(w)
		if err := cw.Write(columns); err != nil {
			return nil, err
		}
		return &csvWriter{w: cw, columns: columns, row: make([]string, len(columns))}, nil
	case "jsonl":
		return &jsonlWriter{w: w}, nil
	}
	return nil, fmt.Errorf("unknown format %q", format)
}

type csvWriter struct {
	w       *csv.Writer
	columns []string
	row     []string
}

func (c *csvWriter) write(r export.Record) error {
	for i, col := range c.columns {
		c.row[i] = safeCell(r, col)
	}
	return c.w.Write(c.row)
}

// safeCell is the CSV cell of a column: a text cell that a spreadsheet
// would run as a formula (it begins with =, +, -, @, a tab or a carriage
// return) is prefixed with ', as OWASP advises. Numbers, booleans and
// times are never touched, so a negative score stays a number.
func safeCell(r export.Record, col string) string {
	cell := r.Cell(col)
	if cell == "" || !strings.ContainsRune("=+-@\t\r", rune(cell[0])) || !r.IsText(col) {
		return cell
	}
	return "'" + cell
}

func (c *csvWriter) flush() error {
	c.w.Flush()
	return c.w.Error()
}

type jsonlWriter struct{ w io.Writer }

func (j *jsonlWriter) write(r export.Record) error {
	b, err := r.JSON()
	if err != nil {
		return err
	}
	if _, err := j.w.Write(append(b, '\n')); err != nil {
		return err
	}
	return nil
}

func (j *jsonlWriter) flush() error { return nil }

// recordKey identifies a record by the named fields, as CSV renders them.
// It is a digest, so that the keys of a large export stay small in memory
// and on disk.
type recordKey [16]byte

func keyOf(r export.Record, fields []string) recordKey {
	h := sha256.New()
	for _, f := range fields {
		h.Write([]byte(r.Cell(f)))
		h.Write([]byte{0x1f})
	}
	var k recordKey
	copy(k[:], h.Sum(nil))
	return k
}
