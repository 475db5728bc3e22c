// Package fakeserver is the lifecycle the service fakes share: their
// options, the loopback listener, the latency knob, the bearer token,
// injected failures, handler overrides and panic capture. Each fake keeps
// its store and routes, and forwards its public methods here.
package fakeserver

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp/internal/opt"
)

// Config is what the options set: every fake's settings, and Own, its own.
type Config[C any] struct {
	Name    string // the fake's package name, to prefix errors
	Token   string
	Clock   func() time.Time
	Latency time.Duration
	Logger  *slog.Logger
	Own     C
}

// Option sets a field of a fake's Config; each fake aliases it as Option.
type Option[C any] func(*Config[C]) error

// Apply builds a fake's Config from its defaults and the options, or
// reports the first bad value. A nil option is skipped.
func Apply[C any](name string, own C, opts []Option[C]) (Config[C], error) {
	cfg := Config[C]{Name: name, Clock: time.Now, Own: own}
	if err := opt.Apply(&cfg, opts); err != nil {
		return cfg, err
	}
	if cfg.Token == "" {
		cfg.Token = RandomHex(16)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg, nil
}

// WithToken sets the bearer token; an empty or blank one is an error.
func WithToken[C any](token string) Option[C] {
	return Checked(strings.TrimSpace(token) != "", func(c *Config[C]) { c.Token = token }, "WithToken: empty token")
}

// WithClock sets the clock; nil is an error.
func WithClock[C any](now func() time.Time) Option[C] {
	return Checked(now != nil, func(c *Config[C]) { c.Clock = now }, "WithClock: nil clock")
}

// WithLatency delays every request; a negative d is an error.
func WithLatency[C any](d time.Duration) Option[C] {
	return Checked(d >= 0, func(c *Config[C]) { c.Latency = d }, "WithLatency(%s): negative latency", d)
}

// WithLogger sets the logger; nil is silent.
func WithLogger[C any](l *slog.Logger) Option[C] {
	return func(c *Config[C]) error { c.Logger = l; return nil }
}

// Core is one fake's shared state. Its methods are safe for concurrent use.
type Core struct {
	Token string
	Log   *slog.Logger

	name     string
	clock    func() time.Time
	template func(path string) string
	latency  atomic.Int64
	ts       *httptest.Server

	overrides atomic.Pointer[http.ServeMux]
	mu        sync.Mutex // guards the fields below
	faults    []fault    // pending injected failures, scoped ones first
	handlers  map[string]http.Handler
	panics    []string

	stats stats
}

// NewCore makes a Core from a Config.
func NewCore[C any](cfg Config[C], template func(path string) string) *Core {
	c := &Core{Token: cfg.Token, Log: cfg.Logger, name: cfg.Name, clock: cfg.Clock, template: template,
		handlers: map[string]http.Handler{}}
	c.stats.counts = map[string]int{}
	c.overrides.Store(http.NewServeMux())
	c.latency.Store(int64(cfg.Latency))
	return c
}

// Now reads the fake's clock.
func (c *Core) Now() time.Time { return c.clock() }

// Listen serves h on a loopback port and returns its base URL.
func (c *Core) Listen(h http.Handler) string {
	c.ts = httptest.NewServer(h)
	return c.ts.URL
}

// Close stops the listener, if any, and waits for requests in flight.
func (c *Core) Close() {
	if c.ts != nil {
		c.ts.Close()
	}
}

// Watch runs closeFake when the test ends, and then fails the test when a
// handler panicked: the client saw a 500, which a retry could have hidden.
func Watch(t testing.TB, c *Core, closeFake func()) {
	t.Helper()
	t.Cleanup(func() {
		closeFake()
		c.mu.Lock()
		msgs := append([]string(nil), c.panics...)
		c.mu.Unlock()
		if len(msgs) > 0 {
			t.Errorf("%s: %d request(s) panicked in the fake and were answered 500: %s",
				c.name, len(msgs), strings.Join(msgs, "; "))
		}
	})
}

// recovered keeps a handler's panic v for Watch; http.ErrAbortHandler
// panics on, as net/http expects.
func (c *Core) recovered(r *http.Request, v any) {
	if v == http.ErrAbortHandler {
		panic(v)
	}
	msg := fmt.Sprintf("%s %s: %v", r.Method, cmp.Or(r.URL, &url.URL{}).Path, v)
	c.Log.Error(c.name+": recovered panic", "panic", msg)
	c.mu.Lock()
	c.panics = append(c.panics, msg)
	c.mu.Unlock()
}

// Panics counts the panics the fake recovered from.
func (c *Core) Panics() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.panics)
}

// SetLatency delays every later request by d; zero turns it off.
func (c *Core) SetLatency(d time.Duration) { c.latency.Store(int64(d)) }

// wait applies the latency, outside every lock.
func (c *Core) wait(ctx context.Context) bool {
	d := time.Duration(c.latency.Load())
	if d <= 0 {
		return true
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

func (c *Core) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(c.Token)) == 1
}

// RandomHex returns n random bytes in hex.
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
