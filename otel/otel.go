package otel

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/edapp-go/edapp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of every span and metric.
const ScopeName = "github.com/edapp-go/edapp/otel"

// Attribute keys. The HTTP ones are OpenTelemetry's semantic conventions.
const (
	keyMethod     = attribute.Key("http.request.method")
	keyStatus     = attribute.Key("http.response.status_code")
	keyTemplate   = attribute.Key("url.template")
	keyErrorType  = attribute.Key("error.type")
	keyStatusCls  = attribute.Key("edapp.status_class")
	keyWaitKind   = attribute.Key("edapp.wait.kind")
	keyAttempt    = attribute.Key("edapp.attempt")
	keyAttempts   = attribute.Key("edapp.attempts")
	keyWaitedSecs = attribute.Key("edapp.waited")
	keyDuration   = attribute.Key("edapp.duration")
	keyPage       = attribute.Key("edapp.page")
	keyItems      = attribute.Key("edapp.items")
)

// Option configures NewObserver. A bad value makes NewObserver fail with
// an error wrapping edapp.ErrInvalidInput: the first bad value given. A nil
// Option is skipped.
type Option func(*config) error

type config struct {
	tp      trace.TracerProvider
	mp      metric.MeterProvider
	limiter edapp.BudgetReporter
}

// WithTracerProvider sets where spans go (default: the global provider).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) error {
		if tp == nil {
			return invalid("WithTracerProvider(nil)")
		}
		c.tp = tp
		return nil
	}
}

// WithMeterProvider sets where metrics go (default: the global provider).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) error {
		if mp == nil {
			return invalid("WithMeterProvider(nil)")
		}
		c.mp = mp
		return nil
	}
}

// WithLimiter makes the budget gauges report l: give it the limiter the
// client uses (see [edapp.WithLimiter]).
func WithLimiter(l edapp.BudgetReporter) Option {
	return func(c *config) error {
		if l == nil {
			return invalid("WithLimiter(nil)")
		}
		c.limiter = l
		return nil
	}
}

// invalid is a bad option value's error, wrapping edapp.ErrInvalidInput.
func invalid(what string) error {
	return fmt.Errorf("edappotel: %w: %s", edapp.ErrInvalidInput, what)
}

// apply applies opts to c in order and returns the first error; a nil
// option is skipped. (The root module's internal/opt, which a nested
// module may not import.)
func apply(c *config, opts []Option) error {
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(c); err != nil {
			return err
		}
	}
	return nil
}

// instruments are the metrics an observer records.
type instruments struct {
	duration  metric.Float64Histogram
	calls     metric.Int64Counter
	attempts  metric.Int64Counter
	retries   metric.Int64Counter
	throttled metric.Int64Counter
	waited    metric.Float64Histogram
}

type recorder struct {
	tracer trace.Tracer
	m      instruments
}

// NewObserver returns an [edapp.Observer] that records spans and metrics.
// Pass it to [edapp.WithObserver].
func NewObserver(opts ...Option) (edapp.Observer, error) {
	c := config{tp: otel.GetTracerProvider(), mp: otel.GetMeterProvider()}
	if err := apply(&c, opts); err != nil {
		return edapp.Observer{}, err
	}
	meter := c.mp.Meter(ScopeName)
	m, err := newInstruments(meter)
	if err == nil && c.limiter != nil {
		err = registerBudget(meter, c.limiter)
	}
	if err != nil {
		return edapp.Observer{}, fmt.Errorf("edappotel: %w", err)
	}
	r := &recorder{tracer: c.tp.Tracer(ScopeName), m: m}
	return edapp.Observer{
		CallStart: r.callStart,
		CallEnd:   r.callEnd,
		Attempt:   r.attempt,
		Wait:      r.wait,
		Page:      r.page,
	}, nil
}

func newInstruments(meter metric.Meter) (instruments, error) {
	var m instruments
	var errs [6]error
	m.duration, errs[0] = meter.Float64Histogram("http.client.request.duration",
		metric.WithUnit("s"), metric.WithDescription("Duration of each HTTP attempt."),
		metric.WithExplicitBucketBoundaries(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10))
	m.calls, errs[1] = meter.Int64Counter("edapp.client.calls",
		metric.WithUnit("{call}"), metric.WithDescription("Calls made, by route and status class."))
	m.attempts, errs[2] = meter.Int64Counter("edapp.client.attempts",
		metric.WithUnit("{attempt}"), metric.WithDescription("Attempts sent, retries included, by route and status class."))
	m.retries, errs[3] = meter.Int64Counter("edapp.client.retries",
		metric.WithUnit("{attempt}"), metric.WithDescription("Attempts after a call's first, by route."))
	m.throttled, errs[4] = meter.Int64Counter("edapp.client.throttled",
		metric.WithUnit("{answer}"), metric.WithDescription("429 answers, each of which pauses the client, by route."))
	m.waited, errs[5] = meter.Float64Histogram("edapp.client.wait.duration",
		metric.WithUnit("s"), metric.WithDescription("Time a call was held before an attempt, by what held it."),
		metric.WithExplicitBucketBoundaries(0.001, 0.01, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300))
	return m, errors.Join(errs[:]...)
}

// registerBudget adds the gauges of the limiter's current window.
func registerBudget(meter metric.Meter, l edapp.BudgetReporter) error {
	used, err := meter.Int64ObservableGauge("edapp.client.budget.used",
		metric.WithUnit("{request}"), metric.WithDescription("Requests the limiter admitted in its current window."))
	if err != nil {
		return err
	}
	limit, err := meter.Int64ObservableGauge("edapp.client.budget.limit",
		metric.WithUnit("{request}"), metric.WithDescription("Requests the limiter admits in a window."))
	if err != nil {
		return err
	}
	remaining, err := meter.Int64ObservableGauge("edapp.client.budget.remaining",
		metric.WithUnit("{request}"), metric.WithDescription("Requests the limiter may still admit in its current window."))
	if err != nil {
		return err
	}
	_, err = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		// One read serves the three gauges: a shared budget's is a Redis call.
		u, l := l.BudgetUsed()
		o.ObserveInt64(used, int64(u))
		o.ObserveInt64(limit, int64(l))
		o.ObserveInt64(remaining, int64(max(l-u, 0)))
		return nil
	}, used, limit, remaining)
	return err
}

func (r *recorder) callStart(ctx context.Context, e edapp.CallEvent) context.Context {
	ctx, _ = r.tracer.Start(ctx, e.Method+" "+e.Route, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(keyMethod.String(e.Method), keyTemplate.String(e.Route)))
	return ctx
}

func (r *recorder) callEnd(ctx context.Context, e edapp.CallEvent) {
	span := trace.SpanFromContext(ctx)
	attrs := []attribute.KeyValue{keyAttempts.Int(e.Attempts), keyWaitedSecs.Float64(e.Waited.Seconds())}
	if e.StatusCode != 0 {
		attrs = append(attrs, keyStatus.Int(e.StatusCode))
	}
	if e.Error != edapp.ErrorClassNone {
		attrs = append(attrs, keyErrorType.String(string(e.Error)))
		span.SetStatus(codes.Error, string(e.Error))
	}
	span.SetAttributes(attrs...)
	span.End()
	r.m.calls.Add(ctx, 1, metric.WithAttributes(routeAttrs(e.Method, e.Route, e.StatusCode, e.Error)...))
}

func (r *recorder) attempt(ctx context.Context, e edapp.AttemptEvent) {
	attrs := routeAttrs(e.Method, e.Route, e.StatusCode, e.Error)
	set := metric.WithAttributes(attrs...)
	r.m.attempts.Add(ctx, 1, set)
	r.m.duration.Record(ctx, e.Duration.Seconds(), set)
	route := metric.WithAttributes(keyMethod.String(e.Method), keyTemplate.String(e.Route))
	if e.Attempt > 1 {
		r.m.retries.Add(ctx, 1, route)
	}
	if e.StatusCode == 429 {
		r.m.throttled.Add(ctx, 1, route)
	}
	trace.SpanFromContext(ctx).AddEvent("attempt", trace.WithAttributes(
		append(attrs, keyAttempt.Int(e.Attempt), keyDuration.Float64(e.Duration.Seconds()))...))
}

func (r *recorder) wait(ctx context.Context, e edapp.WaitEvent) {
	kind := keyWaitKind.String(string(e.Kind))
	r.m.waited.Record(ctx, e.Duration.Seconds(), metric.WithAttributes(kind, keyTemplate.String(e.Route)))
	trace.SpanFromContext(ctx).AddEvent("wait", trace.WithAttributes(kind, keyDuration.Float64(e.Duration.Seconds())))
}

func (r *recorder) page(ctx context.Context, e edapp.PageEvent) {
	trace.SpanFromContext(ctx).AddEvent("page", trace.WithAttributes(keyPage.Int(e.Page), keyItems.Int(e.Items)))
}

// routeAttrs are the attributes of a call or an attempt.
func routeAttrs(method, route string, status int, class edapp.ErrorClass) []attribute.KeyValue {
	attrs := []attribute.KeyValue{keyMethod.String(method), keyTemplate.String(route), keyStatusCls.String(statusClass(status))}
	if status != 0 {
		attrs = append(attrs, keyStatus.Int(status))
	}
	if class != edapp.ErrorClassNone {
		attrs = append(attrs, keyErrorType.String(string(class)))
	}
	return attrs
}

// statusClass is "2xx", "4xx", ..., or "error" when no answer came.
func statusClass(status int) string {
	if status < 100 || status > 599 {
		return "error"
	}
	return strconv.Itoa(status/100) + "xx"
}
