package fakeserver

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// Table keeps a fake's records by id in the order they were first added.
type Table[T any] struct {
	byID  map[string]*T
	order []string
}

// Add stores v under id; adding an id again replaces its record in place.
func (t *Table[T]) Add(id string, v *T) {
	if t.byID == nil {
		t.byID = map[string]*T{}
	}
	if _, ok := t.byID[id]; !ok {
		t.order = append(t.order, id)
	}
	t.byID[id] = v
}

// Get returns the record of id, or nil.
func (t *Table[T]) Get(id string) *T { return t.byID[id] }

// Remove deletes the record of id, if any.
func (t *Table[T]) Remove(id string) {
	if _, ok := t.byID[id]; ok {
		delete(t.byID, id)
		t.order = slices.DeleteFunc(t.order, func(o string) bool { return o == id })
	}
}

// All returns the records in order.
func (t *Table[T]) All() []*T {
	out := make([]*T, 0, len(t.order))
	for _, id := range t.order {
		out = append(out, t.byID[id])
	}
	return out
}

// Find returns the first record match reports true for, or nil.
func (t *Table[T]) Find(match func(*T) bool) *T {
	for _, id := range t.order {
		if v := t.byID[id]; match(v) {
			return v
		}
	}
	return nil
}

// Filter returns, in order, the records match reports true for.
func (t *Table[T]) Filter(match func(*T) bool) []*T {
	var out []*T
	for _, id := range t.order {
		if v := t.byID[id]; match(v) {
			out = append(out, v)
		}
	}
	return out
}

// Len counts the records.
func (t *Table[T]) Len() int { return len(t.order) }

// statusWriter remembers the first status written, 0 while none was.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Map converts every item; an empty list is an empty array, not null.
func Map[S, T any](items []S, conv func(S) T) []T {
	out := make([]T, 0, len(items))
	for _, it := range items {
		out = append(out, conv(it))
	}
	return out
}

// OrDefault is v, or def when v is blank.
func OrDefault(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return v
}

// Btoi is 1 for true and 0 for false.
func Btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// OrTime is t, or def when t is zero.
func OrTime(t, def time.Time) time.Time {
	if t.IsZero() {
		return def
	}
	return t
}
