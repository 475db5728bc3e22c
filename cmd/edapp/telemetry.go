package main

import (
	"context"
	"errors"
	"time"

	"github.com/edapp-go/edapp"
	edappotel "github.com/edapp-go/edapp/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
)

// otlpEndpointEnv turns on OTLP export of the CLI's spans and metrics. The
// exporters read it, and the other OTEL_EXPORTER_OTLP_* variables, from
// the process's environment themselves.
const otlpEndpointEnv = "OTEL_EXPORTER_OTLP_ENDPOINT"

// telemetryFlushTimeout bounds how long the exporters may take to send
// what they hold when the command is done.
const telemetryFlushTimeout = 5 * time.Second

// startTelemetry starts the OTLP exporters and returns an observer that
// feeds them, and shutdown, which flushes and stops them. The caller must
// call shutdown once the client is done, on errors too.
func startTelemetry(ctx context.Context, limiter edapp.BudgetReporter) (edapp.Observer, func() error, error) {
	res := resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceName("edapp"), semconv.ServiceVersion(buildVersion()))
	spans, err := otlptracehttp.New(ctx)
	if err != nil {
		return edapp.Observer{}, nil, err
	}
	points, err := otlpmetrichttp.New(ctx)
	if err != nil {
		return edapp.Observer{}, nil, errors.Join(err, spans.Shutdown(ctx))
	}
	tp := trace.NewTracerProvider(trace.WithBatcher(spans), trace.WithResource(res))
	mp := metric.NewMeterProvider(metric.WithResource(res),
		metric.WithReader(metric.NewPeriodicReader(points, metric.WithInterval(30*time.Second))))
	shutdown := func() error {
		// Shutting down flushes what is buffered.
		ctx, cancel := context.WithTimeout(context.Background(), telemetryFlushTimeout)
		defer cancel()
		return errors.Join(tp.Shutdown(ctx), mp.Shutdown(ctx))
	}
	opts := []edappotel.Option{edappotel.WithTracerProvider(tp), edappotel.WithMeterProvider(mp)}
	if limiter != nil {
		opts = append(opts, edappotel.WithLimiter(limiter))
	}
	obs, err := edappotel.NewObserver(opts...)
	if err != nil {
		return edapp.Observer{}, nil, errors.Join(err, shutdown())
	}
	return obs, shutdown, nil
}

// combineObservers is one Observer that reports to each of obs in turn.
// CallStart passes the context each returns on to the next. Callbacks no
// observer sets stay nil, so combining empty observers costs nothing.
func combineObservers(obs ...edapp.Observer) edapp.Observer {
	var starts []func(context.Context, edapp.CallEvent) context.Context
	for _, o := range obs {
		if o.CallStart != nil {
			starts = append(starts, o.CallStart)
		}
	}
	var out edapp.Observer
	if len(starts) > 0 {
		out.CallStart = func(ctx context.Context, e edapp.CallEvent) context.Context {
			for _, f := range starts {
				if derived := f(ctx, e); derived != nil {
					ctx = derived
				}
			}
			return ctx
		}
	}
	out.CallEnd = fanOut(obs, func(o edapp.Observer) func(context.Context, edapp.CallEvent) { return o.CallEnd })
	out.Attempt = fanOut(obs, func(o edapp.Observer) func(context.Context, edapp.AttemptEvent) { return o.Attempt })
	out.Wait = fanOut(obs, func(o edapp.Observer) func(context.Context, edapp.WaitEvent) { return o.Wait })
	out.Page = fanOut(obs, func(o edapp.Observer) func(context.Context, edapp.PageEvent) { return o.Page })
	return out
}

// fanOut calls the callback pick chooses of each of obs that sets it; nil
// when none does.
func fanOut[E any](obs []edapp.Observer, pick func(edapp.Observer) func(context.Context, E)) func(context.Context, E) {
	var fs []func(context.Context, E)
	for _, o := range obs {
		if f := pick(o); f != nil {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return nil
	}
	return func(ctx context.Context, e E) {
		for _, f := range fs {
			f(ctx, e)
		}
	}
}
