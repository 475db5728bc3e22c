package main

import (
	"context"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/redislimit"
	"github.com/redis/go-redis/v9"
	collectormetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/proto"
)

// gaugeValues reads the OTLP metrics requests in body (concatenated, which
// protobuf reads as one request holding them all) and returns the latest
// point of each int64 gauge, by name.
func gaugeValues(t *testing.T, body []byte) map[string]int64 {
	t.Helper()
	var req collectormetrics.ExportMetricsServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		t.Fatalf("the collector's metrics do not decode: %v", err)
	}
	values, at := map[string]int64{}, map[string]uint64{}
	for _, rm := range req.GetResourceMetrics() {
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				for _, p := range m.GetGauge().GetDataPoints() {
					if p.GetTimeUnixNano() >= at[m.GetName()] {
						values[m.GetName()], at[m.GetName()] = p.GetAsInt(), p.GetTimeUnixNano()
					}
				}
			}
		}
	}
	return values
}

// TestTelemetryReportsTheBudgetSharedThroughRedis: two exports share a
// token's budget through a real Redis, one after the other; the budget
// gauges the second sends over OTLP are the shared window's, as Redis
// holds it: every request of both runs is used, and the rest remains.
func TestTelemetryReportsTheBudgetSharedThroughRedis(t *testing.T) {
	redisURL := startRedis(t)
	srv := edapptest.New(t)
	t.Cleanup(srv.Close)
	if _, err := fakedata.SeedDemo(srv); err != nil {
		t.Fatal(err)
	}
	col, endpoint := newCollector(t)
	t.Setenv(otlpEndpointEnv, endpoint) // the exporters read the process's environment
	args := []string{"export", "--kinds", "users,groups,courses", "--redis", redisURL, "--budget", "1000/10m"}
	first := fakeEnv(srv) // without the endpoint: no telemetry
	wantCode(t, runEnv(t, first, append(args, "--out", t.TempDir())...), exitOK)
	second := fakeEnv(srv)
	second[otlpEndpointEnv] = endpoint
	wantCode(t, runEnv(t, second, append(args, "--out", t.TempDir())...), exitOK)

	var sent int64
	for _, req := range srv.Requests() {
		if strings.HasPrefix(req.Path, "/v2/") {
			sent++
		}
	}
	opts, _ := redis.ParseURL(redisURL)
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	held, err := rdb.ZCard(context.Background(), "{"+redislimit.KeyForToken(srv.Token)+"}:all").Result()
	if err != nil {
		t.Fatal(err)
	}
	if held != sent || sent < 4 {
		t.Fatalf("Redis holds %d admissions for the %d requests sent", held, sent)
	}
	got := gaugeValues(t, col.body("/v1/metrics"))
	want := map[string]int64{"edapp.client.budget.used": held, "edapp.client.budget.limit": 1000,
		"edapp.client.budget.remaining": 1000 - held}
	for name, v := range want {
		if g, ok := got[name]; !ok || g != v {
			t.Errorf("%s = %d (sent: %v), want %d, as Redis holds", name, g, ok, v)
		}
	}
}
