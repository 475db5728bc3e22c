package edapp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"time"
)

// This file holds the small pieces the resource files share, so that they
// read as a list of operations.

// decodeWithExtra decodes b into v, a pointer to a struct type without an
// UnmarshalJSON method, and sets *extra to the members of the JSON object
// that none of v's fields take (matched without regard to case, as
// encoding/json matches them), or nil when there are none. Records whose
// shape the spec does not show use it to keep every field the SDK does not
// know.
func decodeWithExtra(b []byte, v any, extra *map[string]json.RawMessage) error {
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	known := jsonNames(reflect.TypeOf(v).Elem())
	for k := range members {
		if known[strings.ToLower(k)] {
			delete(members, k)
		}
	}
	if len(members) == 0 {
		members = nil
	}
	*extra = members
	return nil
}

var jsonNamesCache sync.Map // reflect.Type -> map[string]bool

// jsonNames returns the lower-cased JSON names of t's fields.
func jsonNames(t reflect.Type) map[string]bool {
	if m, ok := jsonNamesCache.Load(t); ok {
		return m.(map[string]bool)
	}
	m := make(map[string]bool, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[strings.ToLower(name)] = true
	}
	jsonNamesCache.Store(t, m)
	return m
}

var queryTimeType = reflect.TypeFor[time.Time]()

// utcQuery returns a copy of opts with every time.Time field in UTC, so that
// go-querystring writes datetimes as RFC 3339 in UTC ("2024-05-01T00:00:00Z")
// whatever location the caller used. Zero times stay zero and are left out
// by their omitempty tags. A nil opts stays nil.
func utcQuery[O any](opts *O) *O {
	if opts == nil {
		return nil
	}
	c := *opts
	v := reflect.ValueOf(&c).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Type() == queryTimeType && f.CanSet() {
			f.Set(reflect.ValueOf(f.Interface().(time.Time).UTC()))
		}
	}
	return &c
}

// doChecked sends a request whose answer may be the spec's {"success": ...}
// object, and turns {"success": false} into an *APIError that matches
// ErrUnsuccessful. Any other answer (empty, another object, not JSON at all)
// counts as success: the spec shows the answer of the deletes only.
func (c *Client) doChecked(ctx context.Context, method, path string, body any, opts []RequestOption) error {
	rc := newRequestConfig(opts)
	var raw json.RawMessage
	resp, err := c.do(ctx, method, path, nil, body, &raw, &rc, true)
	if err != nil {
		var de *DecodeError
		if errors.As(err, &de) {
			return nil // a 2xx answer that is not JSON: nothing says it failed
		}
		return err
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var res struct {
		Success *bool  `json:"success"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &res) != nil || res.Success == nil || *res.Success {
		return nil
	}
	msg := res.Message
	if msg == "" {
		msg = `the service answered {"success": false}`
	}
	return &APIError{
		StatusCode: resp.StatusCode,
		Method:     method,
		Path:       path,
		Message:    c.redact(msg),
		Body:       []byte(excerpt(c.redact(string(raw)), maxErrorBody)),
		RequestID:  resp.RequestID,
		Response:   resp,
	}
}

// record sends a request whose answer is a record, so an empty answer is
// an error.
func (c *Client) record(ctx context.Context, method, path string, body, out any, opts []RequestOption) error {
	rc := newRequestConfig(opts)
	rc.needBody = true
	_, err := c.do(ctx, method, path, nil, body, out, &rc, false)
	return err
}

// The two spellings of the user group list paths. The spec writes the
// list operations with usersgroups; the vendor's own SDK uses usergroups.
const (
	groupsSpecPrefix = "/v2/usersgroups"
	groupsAltPrefix  = "/v2/usergroups"
)

// listGroupsPage fetches one page of a user group list operation: the
// groups (suffix "") or a group's users (suffix "/{groupId}/users"). It
// sends the spec's spelling; on a 404 it tries the other spelling once.
// When that one answers 2xx, the client uses it from then on. When it too
// answers 404 (an unknown group), the error is the spec spelling's; any
// other failure of the second spelling is returned as it is.
func listGroupsPage[T any](ctx context.Context, c *Client, suffix string, query any, opts ...RequestOption) (*Page[T], error) {
	if c.groupsAltSpelling.Load() {
		return listPage[T](ctx, c, groupsAltPrefix+suffix, query, opts...)
	}
	p, err := listPage[T](ctx, c, groupsSpecPrefix+suffix, query, opts...)
	if err == nil || !errors.Is(err, ErrNotFound) {
		return p, err
	}
	p2, err2 := listPage[T](ctx, c, groupsAltPrefix+suffix, query, opts...)
	switch {
	case err2 == nil:
		c.groupsAltSpelling.Store(true)
		return p2, nil
	case errors.Is(err2, ErrNotFound):
		return nil, err
	case errors.As(err2, new(*DecodeError)):
		c.groupsAltSpelling.Store(true) // a 2xx: the path exists
	}
	return nil, err2
}
