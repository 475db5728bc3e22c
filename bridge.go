package edapp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/edapp-go/edapp/internal/bridge"
	"github.com/edapp-go/edapp/internal/transport"
)

// The bridge lets package safetyculture send its calls through this
// package's machinery (options, transport, errors, Observer, decoding)
// without a public API of its own here.
func init() {
	bridge.NewCaller = newBridgeCaller
	bridge.NewConfig = newBridgeConfig
	bridge.NewWalk = newBridgeWalk
	bridge.SetTotal = func(resp any, total int) {
		if r, ok := resp.(*Response); ok && r != nil {
			r.count = listCount{raw: total, sent: true}
		}
	}
}

// newBridgeConfig validates the root options another client was given.
func newBridgeConfig(rootOpts any, defaultBaseURL string) (bridge.Config, error) {
	ro, _ := rootOpts.([]Option)
	cfg, err := applyOptions(defaultBaseURL, ro)
	if err != nil {
		return bridge.Config{}, err
	}
	bc := bridge.Config{
		BaseURL: cfg.baseURL, UserAgent: cfg.userAgent, HTTPClient: cfg.httpClient,
		Retry: transport.Policy(cfg.retry), MaxBody: cfg.maxBody, Logger: cfg.logger,
		AttemptTimeout: cfg.attemptTimeout,
	}
	if newObserver(cfg.observer, nil) != nil {
		o := cfg.observer
		bc.Observer = &o
	}
	return bc, nil
}

// bridgeCaller is a Client of its own (one transport client, one limiter,
// one pause) that sends a bridge.Call.
type bridgeCaller struct{ c *Client }

func newBridgeCaller(bc bridge.Config) (bridge.Caller, error) {
	cfg := &config{
		baseURL: bc.BaseURL, httpClient: bc.HTTPClient, retry: RetryPolicy(bc.Retry), userAgent: bc.UserAgent,
		logger: bc.Logger, maxBody: bc.MaxBody, maxPause: bc.MaxPause, limiterSet: true,
		pauseScope: bc.PauseScope, attemptTimeout: bc.AttemptTimeout,
	}
	if bc.Limiter != nil {
		l, ok := bc.Limiter.(Limiter)
		if !ok {
			return nil, fmt.Errorf("%w: %T is not an edapp.Limiter", ErrInvalidInput, bc.Limiter)
		}
		cfg.limiter = l
	}
	if o, ok := bc.Observer.(*Observer); ok && o != nil {
		cfg.observer = *o
	}
	return bridgeCaller{newClient(bc.Token, cfg)}, nil
}

// Do sends call with the caller's request options, and returns the
// call's *Response.
func (b bridgeCaller) Do(ctx context.Context, call *bridge.Call) (any, error) {
	ro, _ := call.Options.([]RequestOption)
	rc := newRequestConfig(ro)
	if rc.resp == nil {
		rc.resp = new(Response)
	}
	rc.header = mergeHeader(call.Header, rc.header)
	rc.once = call.Once
	op := operation{method: call.Method, route: call.Route, path: call.Path, query: call.Query, body: call.Body}
	err := b.c.do(ctx, op, &rc, func(a *answer) error {
		if call.Answered != nil {
			call.Answered(a.tr.StatusCode, a.tr.Header)
		}
		if call.BodyHash != nil {
			*call.BodyHash = a.digest()
		}
		if call.Record {
			return a.decodeRecord(ctx, call.Out)
		}
		return a.decodeJSON(ctx, call.Out)
	})
	var ae *APIError
	if err != nil && call.Answered != nil && errors.As(err, &ae) && ae.Response != nil {
		call.Answered(ae.StatusCode, ae.Response.Header)
	}
	return rc.resp, err
}

// mergeHeader returns base with the caller's headers over it.
func mergeHeader(base, caller http.Header) http.Header {
	if len(base) == 0 {
		return caller
	}
	h := base.Clone()
	for k, vs := range caller {
		h[k] = vs
	}
	return h
}

// Page reports a page of a list to the Observer.
func (b bridgeCaller) Page(ctx context.Context, route string, page, items int) {
	if ob := b.c.observer; ob != nil {
		notify(ob, ob.o.Page, ctx, PageEvent{Route: route, Page: page, Items: items})
	}
}

// PausedFor is how much of this caller's pause after a 429 is left.
func (b bridgeCaller) PausedFor() time.Duration { return b.c.t.PausedFor() }

// newBridgeWalk splits a walk's options as pages and pageFetch do.
func newBridgeWalk(opts any) bridge.Walk {
	ro, _ := opts.([]RequestOption)
	rc := newRequestConfig(ro)
	into := rc.resp
	perPage := []RequestOption{func(c *requestConfig) {
		*c = rc
		c.resp = nil
		c.bulk = true
	}}
	w := bridge.Walk{PerPage: perPage, PageConcurrency: cmp.Or(rc.pageConcurrency, DefaultPageConcurrency), Err: rc.err}
	w.Fill = func(resp any) {
		if r, ok := resp.(*Response); ok && r != nil && into != nil {
			*into = *r
		}
	}
	return w
}
