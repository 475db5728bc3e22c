// Package placeholder rewrites a query's ? placeholders for PostgreSQL.
// It imports nothing of the module, so that dbschema and the writers'
// helpers (which import dbschema) share it.
package placeholder

import (
	"strconv"
	"strings"
)

// Numbered rewrites the ? placeholders of query as $1, $2, ..., as
// PostgreSQL takes them; SQLite takes ? as it is. The query must hold no
// ? in a literal.
func Numbered(query string) string {
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
