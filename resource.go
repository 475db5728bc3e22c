package edapp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	"github.com/edapp-go/edapp/internal/core"
	"github.com/edapp-go/edapp/internal/ids"
	"github.com/edapp-go/edapp/internal/lenient"
	"github.com/edapp-go/edapp/internal/transport"
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

// DoChecked is Do for the operations whose answer may be a {"success": ...}
// object: the deletes, and adding or removing a group member. One rule
// decides, for v2 and v1 alike: a 2xx answer is a failure only when it is a
// JSON object whose "success" is false. DoChecked then returns an *[APIError]
// that matches [ErrUnsuccessful] and carries the answer's "message", if any.
// "success": true, an empty body, {} and any other answer are success: the
// vendor documents {"success": false} as the one 2xx answer that means
// failure. A non-2xx answer is an *APIError, as with Do.
func (c *Client) DoChecked(ctx context.Context, method, path string, query, body any, reqOpts ...RequestOption) error {
	rc := core.NewRequestConfig(reqOpts)
	op := core.Operation{Method: method, Route: rc.Route, Path: path, Query: query, Body: body}
	return c.doChecked(ctx, op, &rc)
}

// doChecked sends op and applies DoChecked's rule to its answer.
func (c *Client) doChecked(ctx context.Context, op core.Operation, rc *core.RequestConfig) error {
	return c.core.Do(ctx, op, rc, func(a *core.Answer) error {
		raw := a.Body()
		msg, failed := unsuccessful(raw)
		if !failed {
			return nil
		}
		if msg == "" {
			msg = `the service answered {"success": false}`
		}
		resp := a.Response()
		return &APIError{
			StatusCode: resp.StatusCode,
			Method:     op.Method,
			Path:       op.Path,
			Message:    a.CleanExcerpt([]byte(msg), transport.MaxErrorBody),
			Body:       []byte(a.CleanExcerpt(raw, transport.MaxErrorBody)),
			RequestID:  resp.RequestID,
			Response:   resp,
		}
	})
}

// checked sends a request judged by DoChecked's rule, for the resource files.
func (c *Client) checked(ctx context.Context, method string, p ids.Path, body any, opts []RequestOption) error {
	rc := core.NewRequestConfig(opts)
	return c.doChecked(ctx, request(method, p, nil, body), &rc)
}

// doForRecord sends a request whose answer is a record, so an empty answer
// is an error.
func (c *Client) doForRecord(ctx context.Context, method string, p ids.Path, body, out any, opts []RequestOption) error {
	rc := core.NewRequestConfig(opts)
	return c.core.Do(ctx, request(method, p, nil, body), &rc, func(a *core.Answer) error { return a.DecodeRecord(ctx, out) })
}

// unsuccessful applies DoChecked's rule to a 2xx answer: it reports whether
// raw is a JSON object with "success": false (or "false"), and its
// "message".
func unsuccessful(raw []byte) (message string, failed bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return "", false
	}
	var res struct {
		Success any `json:"success"`
		Message any `json:"message"`
	}
	if json.Unmarshal(raw, &res) != nil {
		return "", false
	}
	switch v := res.Success.(type) {
	case bool:
		failed = !v
	case string:
		failed = strings.EqualFold(v, "false")
	}
	message, _ = res.Message.(string)
	return message, failed
}

// What a client knows about a name that the service may spell two ways:
// nothing yet, that it serves the documented spelling, or that it serves
// the undocumented one.
const (
	spellingUnknown int32 = iota
	spellingDocumented
	spellingUndocumented
)

// servedSpellings holds what a client has found the service to serve, each
// value one of the above.
type servedSpellings struct {
	groupsPath atomic.Int32 // /v2/usersgroups or /v2/usergroups
}

// The two spellings of the user group list paths. The vendor documents the
// list operations with usersgroups; the vendor's own SDK uses usergroups.
const (
	groupsDocumentedPrefix   = "/v2/usersgroups"
	groupsUndocumentedPrefix = "/v2/usergroups"
)

// listGroupsPage fetches one page of a user group list operation: the
// groups (suffix "") or a group's users (suffix "/{groupId}/users", with
// the group's id in ids). Until the client knows which spelling the service
// serves, it sends the documented one; on a 404 it tries the other spelling
// once. Whichever spelling answers 2xx is then used alone from then on, so
// a later 404 (an unknown group) costs one request. When both answer 404,
// the error is the documented spelling's and nothing is remembered; any
// other failure of the second spelling is returned as it is.
func listGroupsPage[T any](ctx context.Context, c *Client, suffix string, segs []string, query any, opts ...RequestOption) (*Page[T], error) {
	documented := ids.Fill(groupsDocumentedPrefix+suffix, segs...)
	undocumented := ids.Fill(groupsUndocumentedPrefix+suffix, segs...)
	switch c.served.groupsPath.Load() {
	case spellingDocumented:
		return listPage[T](ctx, c, documented, query, opts...)
	case spellingUndocumented:
		return listPage[T](ctx, c, undocumented, query, opts...)
	}
	p, err := listPage[T](ctx, c, documented, query, opts...)
	if !errors.Is(err, ErrNotFound) {
		if pathServed(err) {
			c.served.groupsPath.Store(spellingDocumented)
		}
		return p, err
	}
	p2, err2 := listPage[T](ctx, c, undocumented, query, opts...)
	if pathServed(err2) {
		c.served.groupsPath.Store(spellingUndocumented)
	}
	if errors.Is(err2, ErrNotFound) {
		return nil, err
	}
	return p2, err2
}

// pathServed reports whether err says that the service answered 2xx, so
// serves the path: no error, or an answer that did not decode.
func pathServed(err error) bool {
	return err == nil || errors.As(err, new(*DecodeError))
}

// RawFields holds the members of an answer that no field of the record
// takes, by name, each as sent; nil when there are none. Every record has
// one, named Extra, so that a member the SDK does not know yet is kept, not
// lost. json.Marshal leaves it out (its tag is "-"): merge it into the
// encoded object to write every member the service sent.
type RawFields map[string]json.RawMessage

// Unmarshal decodes JSON into a record of this package (or a slice of
// them) as the client does: it accepts the spelling variants, fills Extra
// with the members no field takes, and drops a value that does not fit
// rather than fail, returning the JSON paths of what it dropped. Use it
// for records read from a file or a queue; plain json.Unmarshal reads only
// the spellings the fields' tags name, and leaves Extra empty.
func Unmarshal(data []byte, v any) (dropped []string, err error) {
	return lenient.Decode(data, v)
}
