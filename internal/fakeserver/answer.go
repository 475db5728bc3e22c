package fakeserver

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/edapp-go/edapp"
)

// WriteJSON answers v as JSON, with status.
func WriteJSON[T any](w http.ResponseWriter, status int, v T) {
	status, b := EncodeJSON(status, v)
	WriteRaw(w, status, b)
}

// EncodeJSON encodes v for WriteRaw; one that does not encode is a 500.
func EncodeJSON[T any](status int, v T) (int, []byte) {
	b, err := json.Marshal(v)
	if err != nil {
		return http.StatusInternalServerError, []byte(`{"message":"cannot encode response"}` + "\n")
	}
	return status, append(b, '\n')
}

// WriteRaw answers b, JSON, with status.
func WriteRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// List is one page of a list, as both services answer it.
type List[T any] struct {
	TotalCount int `json:"totalCount"`
	Items      []T `json:"items"`
}

// Page returns page n (from 1) of items, size a page, converting only the
// items of that page, so that a page costs its own size, not the list's.
func Page[S, T any](items []S, n, size int, conv func(S) T) List[T] {
	var page []S
	if start := (n - 1) * size; n-1 <= len(items)/size && start < len(items) {
		page = items[start:min(start+size, len(items))]
	}
	out := List[T]{TotalCount: len(items), Items: make([]T, 0, len(page))}
	for _, it := range page {
		out.Items = append(out.Items, conv(it))
	}
	return out
}

// Same is the conversion that keeps an item as it is.
func Same[T any](v T) T { return v }

// Checked is an option that applies set when ok, or reports the bad value.
func Checked[C any](ok bool, set func(*Config[C]), format string, args ...any) Option[C] {
	return func(c *Config[C]) error {
		if !ok {
			return fmt.Errorf("%s: %w: %s", c.Name, edapp.ErrInvalidInput, fmt.Sprintf(format, args...))
		}
		set(c)
		return nil
	}
}
