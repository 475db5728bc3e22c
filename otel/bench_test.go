package otel_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	edappotel "github.com/edapp-go/edapp/otel"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

const benchUserJSON = `{"id":"u-1001","name":"ann@example.com","email":"ann@example.com","firstName":"Ann",` +
	`"lastName":"Lee","externalId":"hr-1001","roles":["app-user"],"userGroups":["g-1"],"customFields":{"team":"blue"}}`

// getUser returns a Users.Get against srv with the client options given.
func getUser(b *testing.B, url string, opts ...edapp.Option) func() {
	b.Helper()
	c, err := edapp.NewClient("bench-token", append([]edapp.Option{edapp.WithBaseURL(url), edapp.WithLimiter(nil)}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	return func() {
		if _, err := c.Users.Get(ctx, "u-1001"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetUser: Users.Get with no observer, with an observer whose
// callbacks do nothing, and with this package's observer on OpenTelemetry's
// no-op providers. "interleaved" runs the three in turn in one loop and
// reports each one's mean time a call, so machine noise hits all alike.
func BenchmarkGetUser(b *testing.B) {
	body := []byte(benchUserJSON)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	noop := edapp.Observer{
		CallStart: func(ctx context.Context, _ edapp.CallEvent) context.Context { return ctx },
		CallEnd:   func(context.Context, edapp.CallEvent) {},
		Attempt:   func(context.Context, edapp.AttemptEvent) {},
		Wait:      func(context.Context, edapp.WaitEvent) {},
		Page:      func(context.Context, edapp.PageEvent) {},
	}
	otelNoop, err := edappotel.NewObserver(edappotel.WithTracerProvider(tracenoop.NewTracerProvider()),
		edappotel.WithMeterProvider(metricnoop.NewMeterProvider()))
	if err != nil {
		b.Fatal(err)
	}
	variants := []struct {
		name string
		call func()
	}{
		{"observer=none", getUser(b, srv.URL)},
		{"observer=noop", getUser(b, srv.URL, edapp.WithObserver(noop))},
		{"observer=otel-noop", getUser(b, srv.URL, edapp.WithObserver(otelNoop))},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v.call()
			}
		})
	}
	b.Run("interleaved", func(b *testing.B) {
		spent := make([]time.Duration, len(variants))
		for b.Loop() {
			for i, v := range variants {
				start := time.Now()
				v.call()
				spent[i] += time.Since(start)
			}
		}
		for i, v := range variants {
			b.ReportMetric(float64(spent[i].Nanoseconds())/float64(b.N), v.name[len("observer="):]+"-ns/op")
		}
	})
}
