package usersync

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

var columns = []string{"externalId", "username", "email", "firstName", "lastName", "userGroups", "roles", "timeZone"}

// Columns returns the columns a sync CSV may have, in any order.
// externalId is required; any other column is an error.
func Columns() []string { return slices.Clone(columns) }

// notUTF8Hint says what to do with a file in another encoding: cells are
// refused rather than sent with U+FFFD in place of every accented letter.
const notUTF8Hint = "the file must be UTF-8: convert it first, e.g. iconv -f latin1 -t utf-8 users.csv > users-utf8.csv"

// Row is one desired user. An empty field was not given (no column, or an
// empty cell) and leaves that field of an existing user as it is; so does a
// nil UserGroups or Roles.
type Row struct {
	Line       int // the row's line in the file (the header is line 1); 0 when not from a file
	ExternalID string
	Username   string
	Email      string
	FirstName  string
	LastName   string
	TimeZone   string
	UserGroups []string // group names or ids
	Roles      []string // role names
}

// Header maps a CSV's columns to the fields of a [Row].
type Header struct {
	col   map[string]int // column name (as in Columns) -> index
	width int
}

// ParseHeader reads a header row: each cell names one of Columns() (in any
// case; a UTF-8 byte order mark is ignored), none twice, externalId among
// them. A cell that is not valid UTF-8 is refused.
func ParseHeader(record []string) (*Header, error) {
	h := &Header{col: map[string]int{}, width: len(record)}
	for i, cell := range record {
		if !utf8.ValidString(cell) {
			return nil, fmt.Errorf("line 1: column %d is not valid UTF-8 (%+q); %s", i+1, cell, notUTF8Hint)
		}
		cell = strings.TrimSpace(strings.TrimPrefix(cell, "\ufeff"))
		name := ""
		for _, c := range columns {
			if strings.EqualFold(cell, c) {
				name = c
			}
		}
		if name == "" {
			return nil, fmt.Errorf("line 1: unknown column %q (want some of %s)", cell, strings.Join(columns, ","))
		}
		if _, dup := h.col[name]; dup {
			return nil, fmt.Errorf("line 1: column %q appears twice", name)
		}
		h.col[name] = i
	}
	if _, ok := h.col["externalId"]; !ok {
		return nil, errors.New("line 1: the externalId column is required")
	}
	return h, nil
}

// ParseRow turns one data row, found on line, into a [Row]. Cells are
// trimmed; userGroups and roles are lists separated by ";". It checks only
// the number of cells and that each is valid UTF-8: NewPlan checks the
// values.
func (h *Header) ParseRow(line int, record []string) (Row, error) {
	if len(record) != h.width {
		return Row{}, &Problem{Line: line, Msg: fmt.Sprintf("%d fields, want %d", len(record), h.width)}
	}
	for i, cell := range record {
		if !utf8.ValidString(cell) {
			return Row{}, &Problem{Line: line, Msg: fmt.Sprintf("field %d is not valid UTF-8 (%+q); %s", i+1, cell, notUTF8Hint)}
		}
	}
	get := func(name string) string {
		if i, ok := h.col[name]; ok {
			return strings.TrimSpace(record[i])
		}
		return ""
	}
	return Row{
		Line:       line,
		ExternalID: get("externalId"),
		Username:   get("username"),
		Email:      get("email"),
		FirstName:  get("firstName"),
		LastName:   get("lastName"),
		TimeZone:   get("timeZone"),
		UserGroups: splitList(get("userGroups")),
		Roles:      splitList(get("roles")),
	}, nil
}

// ReadCSV reads a whole sync CSV: its header, then every row. A header
// problem or a CSV syntax error is returned at once; rows with the wrong
// number of cells or a cell that is not UTF-8 are listed together in an
// *[InputError].
func ReadCSV(r io.Reader) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	cr.FieldsPerRecord = -1 // ParseRow checks the count, to report every bad row
	record, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("the CSV is empty: it needs a header row")
	}
	if err != nil {
		return nil, fmt.Errorf("reading the CSV header: %w", err)
	}
	h, err := ParseHeader(record)
	if err != nil {
		return nil, err
	}
	return h.readRows(cr)
}

// readRows reads the data rows that follow the header.
func (h *Header) readRows(cr *csv.Reader) ([]Row, error) {
	var (
		rows []Row
		bad  InputError
	)
	for {
		record, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the CSV: %w", err)
		}
		line, _ := cr.FieldPos(0)
		row, err := h.ParseRow(line, record)
		var p *Problem
		if errors.As(err, &p) {
			bad.Problems = append(bad.Problems, *p)
			continue
		}
		rows = append(rows, row)
	}
	if len(bad.Problems) > 0 {
		return nil, &bad
	}
	return rows, nil
}

// splitList splits a ;-separated cell, dropping empty items. An empty cell
// gives nil: not given.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ";") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
