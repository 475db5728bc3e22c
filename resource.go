package edapp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"time"
)

// This file holds the small pieces the resource files share, so that they
// read as a list of operations.

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
func (c *Client) doChecked(ctx context.Context, method, path string, body any) error {
	var raw json.RawMessage
	if err := c.Do(ctx, method, path, nil, body, &raw); err != nil {
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
		StatusCode: http.StatusOK, // a 2xx; which one is not kept by Do
		Method:     method,
		Path:       path,
		Message:    c.redact(msg),
		Body:       []byte(c.redact(excerpt(string(raw), maxErrorBody))),
	}
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
func listGroupsPage[T any](ctx context.Context, c *Client, suffix string, opts any) (*Page[T], error) {
	if c.groupsAltSpelling.Load() {
		return listPage[T](ctx, c, groupsAltPrefix+suffix, opts)
	}
	p, err := listPage[T](ctx, c, groupsSpecPrefix+suffix, opts)
	if err == nil || !errors.Is(err, ErrNotFound) {
		return p, err
	}
	p2, err2 := listPage[T](ctx, c, groupsAltPrefix+suffix, opts)
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
