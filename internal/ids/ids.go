// Package ids checks id arguments and puts them into paths, the same way
// for the root package and v1.
package ids

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrInvalidInput is the root package's ErrInvalidInput: input refused
// before any request was sent.
var ErrInvalidInput = errors.New("edapp: invalid input")

// Require fails when an id argument is empty, blank or made only of dots,
// naming it. A dot-only id would be sent as %2E or %2E%2E, which a proxy
// that decodes the path may take for "." or "..": it could reach another
// resource.
func Require(name, id string) error {
	if strings.TrimSpace(id) == "" {
		return fmt.Errorf("%w: %s is empty", ErrInvalidInput, name)
	}
	if strings.Trim(id, ".") == "" {
		return fmt.Errorf("%w: %s %q is only dots", ErrInvalidInput, name, id)
	}
	return nil
}

// Segment escapes id as one path segment. An id made only of dots is
// escaped too, so "." or ".." can never climb the path even where Require
// was not called.
func Segment(id string) string {
	if strings.Trim(id, ".") == "" {
		return strings.Repeat("%2E", len(id))
	}
	return url.PathEscape(id)
}

// Path is a request path and the route template it was filled from: the
// template names the operation ("/v2/users/{userId}") without its ids.
type Path struct {
	Route string
	Path  string
}

// Fill replaces the {name} placeholders of route, in order, with values,
// each escaped by Segment. A placeholder without a value stays as it is.
func Fill(route string, values ...string) Path {
	if len(values) == 0 {
		return Path{Route: route, Path: route}
	}
	var b strings.Builder
	b.Grow(len(route) + 16*len(values))
	rest := route
	for _, v := range values {
		open := strings.IndexByte(rest, '{')
		end := strings.IndexByte(rest[max(open, 0):], '}')
		if open < 0 || end < 0 {
			break
		}
		b.WriteString(rest[:open])
		b.WriteString(Segment(v))
		rest = rest[open+end+1:]
	}
	b.WriteString(rest)
	return Path{Route: route, Path: b.String()}
}
