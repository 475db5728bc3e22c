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

// Require fails when an id argument is empty or blank, naming it.
func Require(name, id string) error {
	if strings.TrimSpace(id) == "" {
		return fmt.Errorf("%w: %s is empty", ErrInvalidInput, name)
	}
	return nil
}

// Segment escapes id as one path segment. An id made only of dots is
// escaped too, so "." or ".." can never climb the path.
func Segment(id string) string {
	if strings.Trim(id, ".") == "" {
		return strings.Repeat("%2E", len(id))
	}
	return url.PathEscape(id)
}
