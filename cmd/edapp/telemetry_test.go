package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// collector stands in for an OpenTelemetry collector: it keeps the body
// of every OTLP request by path.
type collector struct {
	mu     sync.Mutex
	bodies map[string][]byte
}

func newCollector(t *testing.T) (*collector, string) {
	t.Helper()
	c := &collector{bodies: map[string][]byte{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.bodies[r.URL.Path] = append(c.bodies[r.URL.Path], b...)
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(srv.Close)
	return c, srv.URL
}

func (c *collector) body(path string) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.bodies[path])
}

// TestTelemetryExportsOverOTLP runs commands with the endpoint variable
// set: spans and metrics reach the collector when the command is done
// (the exporters are flushed), failed or not, named by route templates,
// with neither the token nor a header value in them.
func TestTelemetryExportsOverOTLP(t *testing.T) {
	srv, _ := syncFixture(t)
	col, endpoint := newCollector(t)
	t.Setenv(otlpEndpointEnv, endpoint) // the exporters read the process's environment
	e := fakeEnv(srv)
	e[otlpEndpointEnv] = endpoint

	file := writeFile(t, "users.csv", syncCSV)
	wantCode(t, runEnv(t, e, "users", "sync", "--csv", file), exitOK)
	const secret = "hook-secret-value-93c1"
	r := runEnv(t, e, "webhooks", "create", "--event", "LessonCompletedEvent", "--url", "https://hooks.example.com/x", "--header", "X-Hook-Secret="+secret)
	wantCode(t, r, exitOK)
	srv.FailNext(1, 403, 0)
	wantCode(t, runEnv(t, e, "webhooks", "list"), exitError)

	traces, metrics := col.body("/v1/traces"), col.body("/v1/metrics")
	for _, want := range []string{"/v2/users", "/v2/usersgroups", "/v2/webhooks", "edapp.client.attempts", "edapp.client.budget.used"} {
		if !bytes.Contains(append(traces, metrics...), []byte(want)) {
			t.Errorf("the collector received no %q", want)
		}
	}
	for _, span := range []string{"GET /v2/users", "POST /v2/webhooks", "GET /v2/webhooks"} { // the last one failed
		if !bytes.Contains(traces, []byte(span)) {
			t.Errorf("no span %q", span)
		}
	}
	if !bytes.Contains(metrics, []byte("http.client.request.duration")) {
		t.Error("no request duration metric")
	}
	for name, secret := range map[string]string{"the token": srv.Token, "a header value": secret} {
		if bytes.Contains(traces, []byte(secret)) || bytes.Contains(metrics, []byte(secret)) {
			t.Errorf("%s reached the collector", name)
		}
	}
}

// TestTelemetryOffWithoutEndpoint checks that without the variable the
// client gets no observer: nothing is started and nothing costs.
func TestTelemetryOffWithoutEndpoint(t *testing.T) {
	o, err := newObserver(newIOStreams(nil, io.Discard, io.Discard), env{}.get, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.CallStart != nil || o.CallEnd != nil || o.Attempt != nil || o.Wait != nil || o.Page != nil {
		t.Error("an observer without --stats or the OTLP endpoint")
	}
}
