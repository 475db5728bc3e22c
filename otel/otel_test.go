package otel_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	edappotel "github.com/edapp-go/edapp/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// telemetry is an in-memory span recorder and a manual metric reader.
type telemetry struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
	mp     *sdkmetric.MeterProvider
}

func newTelemetry(t *testing.T) *telemetry {
	t.Helper()
	tel := &telemetry{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tel.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tel.spans))
	tel.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(tel.reader))
	t.Cleanup(func() {
		_ = tel.tp.Shutdown(context.Background())
		_ = tel.mp.Shutdown(context.Background())
	})
	return tel
}

// client returns a client of srv that reports to tel.
func (tel *telemetry) client(t *testing.T, srv *edapptest.Server, extra ...edappotel.Option) *edapp.Client {
	t.Helper()
	obs, err := edappotel.NewObserver(append([]edappotel.Option{
		edappotel.WithTracerProvider(tel.tp), edappotel.WithMeterProvider(tel.mp),
	}, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	return srv.Client(edapp.WithObserver(obs),
		edapp.WithRetry(edapp.RetryPolicy{MaxRetries: 3, MinWait: time.Millisecond, MaxWait: 5 * time.Millisecond}))
}

// metrics collects the metrics, keyed by name.
func (tel *telemetry) metrics(t *testing.T) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tel.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// sum adds a counter's points whose attributes hold every one of want.
func sum(t *testing.T, m metricdata.Metrics, want ...attribute.KeyValue) int64 {
	t.Helper()
	data, ok := m.Data.(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s is %T, not an int64 sum", m.Name, m.Data)
	}
	var n int64
	for _, p := range data.DataPoints {
		if hasAll(p.Attributes, want) {
			n += p.Value
		}
	}
	return n
}

// count adds a histogram's counts whose attributes hold every one of want.
func count(t *testing.T, m metricdata.Metrics, want ...attribute.KeyValue) (n uint64, total float64) {
	t.Helper()
	data, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s is %T, not a float64 histogram", m.Name, m.Data)
	}
	for _, p := range data.DataPoints {
		if hasAll(p.Attributes, want) {
			n += p.Count
			total += p.Sum
		}
	}
	return n, total
}

func hasAll(set attribute.Set, want []attribute.KeyValue) bool {
	for _, kv := range want {
		if v, ok := set.Value(kv.Key); !ok || v != kv.Value {
			return false
		}
	}
	return true
}

func attr(kvs []attribute.KeyValue, key string) (attribute.Value, bool) {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func TestNewObserverRecordsACallAndItsRetry(t *testing.T) {
	srv := edapptest.New(t)
	defer srv.Close()
	id, err := srv.AddUser(edapptest.UserSpec{Username: "ann@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	tel := newTelemetry(t)
	c := tel.client(t, srv)
	srv.FailNext(1, http.StatusServiceUnavailable, 0)
	if _, err := c.Users.Get(context.Background(), id); err != nil {
		t.Fatal(err)
	}

	spans := tel.spans.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	s := spans[0]
	if s.Name() != "GET /v2/users/{userId}" {
		t.Errorf("span name %q", s.Name())
	}
	if v, _ := attr(s.Attributes(), "edapp.attempts"); v.AsInt64() != 2 {
		t.Errorf("edapp.attempts = %v, want 2", v.AsInt64())
	}
	if v, _ := attr(s.Attributes(), "http.response.status_code"); v.AsInt64() != 200 {
		t.Errorf("status = %v, want 200", v.AsInt64())
	}
	var statuses []int64
	for _, e := range s.Events() {
		if e.Name == "attempt" {
			v, _ := attr(e.Attributes, "http.response.status_code")
			statuses = append(statuses, v.AsInt64())
		}
	}
	if fmt.Sprint(statuses) != "[503 200]" {
		t.Errorf("attempt events with statuses %v, want [503 200]", statuses)
	}

	m := tel.metrics(t)
	route := attribute.String("url.template", "/v2/users/{userId}")
	if n := sum(t, m["edapp.client.calls"], route, attribute.String("edapp.status_class", "2xx")); n != 1 {
		t.Errorf("calls 2xx = %d, want 1", n)
	}
	if n := sum(t, m["edapp.client.attempts"], route, attribute.String("edapp.status_class", "5xx")); n != 1 {
		t.Errorf("attempts 5xx = %d, want 1", n)
	}
	if n := sum(t, m["edapp.client.retries"], route); n != 1 {
		t.Errorf("retries = %d, want 1", n)
	}
	if n, _ := count(t, m["http.client.request.duration"], route); n != 2 {
		t.Errorf("request durations = %d, want 2", n)
	}
}

func TestNewObserverCountsA429Storm(t *testing.T) {
	srv := edapptest.New(t)
	defer srv.Close()
	tel := newTelemetry(t)
	c := tel.client(t, srv)
	srv.FailNext(3, http.StatusTooManyRequests, 10*time.Millisecond)
	if _, err := c.Users.List(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	m := tel.metrics(t)
	route := attribute.String("url.template", "/v2/users")
	if n := sum(t, m["edapp.client.throttled"], route); n != 3 {
		t.Errorf("throttled = %d, want 3", n)
	}
	if n := sum(t, m["edapp.client.retries"], route); n != 3 {
		t.Errorf("retries = %d, want 3", n)
	}
	n, secs := count(t, m["edapp.client.wait.duration"], attribute.String("edapp.wait.kind", "pause"))
	if n == 0 || secs <= 0 {
		t.Errorf("pause waits: %d totalling %.3fs, want some", n, secs)
	}
	spans := tel.spans.Ended()
	if len(spans) != 1 || spans[0].Status().Code != codes.Unset {
		t.Fatalf("want one span without error, got %d", len(spans))
	}
	waits := 0
	for _, e := range spans[0].Events() {
		if e.Name == "wait" {
			waits++
		}
	}
	if waits == 0 {
		t.Error("the span has no wait event")
	}
}

func TestNewObserverFollowsAParallelWalk(t *testing.T) {
	srv := edapptest.New(t)
	defer srv.Close()
	for i := range 23 {
		if _, err := srv.AddUser(edapptest.UserSpec{Username: fmt.Sprintf("u%02d@example.com", i)}); err != nil {
			t.Fatal(err)
		}
	}
	tel := newTelemetry(t)
	c := tel.client(t, srv)
	// The walk runs in a span of the caller's: each page's call is a child
	// span, and each page is an event on the caller's span.
	ctx, walk := tel.tp.Tracer("test").Start(context.Background(), "walk")
	n := 0
	for _, err := range c.Users.All(ctx, &edapp.UserListOptions{ListOptions: edapp.ListOptions{PageSize: 5}},
		edapp.WithPageConcurrency(4)) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	walk.End()
	if n != 23 {
		t.Fatalf("walked %d users, want 23", n)
	}
	// 4 full pages and the short page that ends the walk; pages fetched
	// ahead past the end are calls too.
	calls := sum(t, tel.metrics(t)["edapp.client.calls"], attribute.String("url.template", "/v2/users"))
	spans := tel.spans.Ended()
	parent := spans[len(spans)-1]
	spans = spans[:len(spans)-1]
	if calls < 5 || int64(len(spans)) != calls {
		t.Errorf("%d calls and %d spans, want at least 5 and one span a call", calls, len(spans))
	}
	for _, s := range spans {
		if s.Name() != "GET /v2/users" || s.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("span %q is not a child of the walk's span", s.Name())
		}
	}
	pages := 0
	for _, e := range parent.Events() {
		if e.Name == "page" {
			pages++
		}
	}
	if int64(pages) != calls {
		t.Errorf("%d page events on the walk's span, want one a call (%d)", pages, calls)
	}
}

func TestNewObserverReportsTheBudget(t *testing.T) {
	srv := edapptest.New(t)
	defer srv.Close()
	lim, err := edapp.NewWindowLimiter(100, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	tel := newTelemetry(t)
	obs, err := edappotel.NewObserver(edappotel.WithTracerProvider(tel.tp), edappotel.WithMeterProvider(tel.mp),
		edappotel.WithLimiter(lim))
	if err != nil {
		t.Fatal(err)
	}
	c := srv.Client(edapp.WithObserver(obs), edapp.WithLimiter(lim))
	for range 7 {
		if _, err := c.Users.List(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	m := tel.metrics(t)
	gauge := func(name string) int64 {
		g, ok := m[name].Data.(metricdata.Gauge[int64])
		if !ok || len(g.DataPoints) != 1 {
			t.Fatalf("%s: %#v", name, m[name].Data)
		}
		return g.DataPoints[0].Value
	}
	used, limit, remaining := gauge("edapp.client.budget.used"), gauge("edapp.client.budget.limit"), gauge("edapp.client.budget.remaining")
	if used != 7 || limit != 100 || remaining != 93 {
		t.Errorf("budget used %d of %d, %d remaining; want 7 of 100, 93 remaining", used, limit, remaining)
	}
}

func TestNewObserverKeepsSecretsAndIDsOut(t *testing.T) {
	srv := edapptest.New(t)
	defer srv.Close()
	id, err := srv.AddUser(edapptest.UserSpec{Username: "ann@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	tel := newTelemetry(t)
	c := tel.client(t, srv)
	_, _ = c.Users.Get(context.Background(), id, edapp.WithHeader("X-Secret", "hush-hush-value"))
	_, _ = c.Users.Get(context.Background(), "no-such-user")
	var all strings.Builder
	for _, s := range tel.spans.Ended() {
		fmt.Fprintln(&all, s.Name(), s.Attributes(), s.Events(), s.Status())
	}
	fmt.Fprintf(&all, "%+v", tel.metrics(t))
	for _, secret := range []string{srv.Token, id, "no-such-user", "hush-hush-value", "ann@example.com"} {
		if strings.Contains(all.String(), secret) {
			t.Errorf("telemetry holds %q", secret)
		}
	}
}

// NewObserver reports the first bad option value as an error wrapping
// edapp.ErrInvalidInput, as every constructor of the SDK does.
func TestNewObserverRefusesNilProviders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []edappotel.Option
		want string // in the error
	}{
		{"tracer", []edappotel.Option{edappotel.WithTracerProvider(nil)}, "WithTracerProvider"},
		{"meter", []edappotel.Option{edappotel.WithMeterProvider(nil)}, "WithMeterProvider"},
		{"limiter", []edappotel.Option{edappotel.WithLimiter(nil)}, "WithLimiter"},
		{"the first bad value", []edappotel.Option{edappotel.WithMeterProvider(nil), edappotel.WithLimiter(nil)}, "WithMeterProvider"},
	} {
		_, err := edappotel.NewObserver(tc.opts...)
		if !errors.Is(err, edapp.ErrInvalidInput) || !strings.Contains(fmt.Sprint(err), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if _, err := edappotel.NewObserver(nil); err != nil {
		t.Errorf("a nil option is skipped, as everywhere: %v", err)
	}
}
