package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export/dbtest"
	"github.com/edapp-go/edapp/webhook"
)

// BenchmarkServe posts b.N distinct deliveries from 32 concurrent senders
// to "edapp webhooks serve" on SQLite and on PostgreSQL, and to the bare
// webhook handler with a no-op function, side by side. It reports
// deliveries per second and the p50 and p99 latency of a delivery.
//
//	go test -run '^$' -bench BenchmarkServe -benchtime 5000x .
func BenchmarkServe(b *testing.B) {
	targets := []struct {
		name string
		url  func(b *testing.B) string
	}{
		{"bare", bareHandlerURL},
		{"sqlite", func(b *testing.B) string { return startInbox(b, dbtest.SQLite(b)).url }},
		{"postgres", func(b *testing.B) string { return startInbox(b, dbtest.Postgres(b)).url }},
	}
	for _, target := range targets {
		b.Run(target.name, func(b *testing.B) {
			url := target.url(b)
			bodies := make([][]byte, b.N)
			for i := range bodies {
				bodies[i], _ = lessonDelivery(i)
			}
			b.ResetTimer()
			start := time.Now()
			lat := sendAll(b, url, bodies, 32)
			elapsed := time.Since(start)
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(len(bodies))/elapsed.Seconds(), "deliveries/s")
			b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100])/1e6, "p99-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// bareHandlerURL serves webhook.NewHandler with a no-op function and the
// same secret check as serve.
func bareHandlerURL(b *testing.B) string {
	h, err := webhook.NewHandler(func(context.Context, edapp.Event) error { return nil },
		webhook.WithSecretHeader(hookHeader, hookSecret))
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	return srv.URL
}

// sendAll posts bodies from senders goroutines and returns each delivery's
// latency.
func sendAll(b *testing.B, url string, bodies [][]byte, senders int) []time.Duration {
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: senders}}
	defer client.CloseIdleConnections()
	lat := make([]time.Duration, len(bodies))
	next := make(chan int)
	var wg sync.WaitGroup
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				req, _ := http.NewRequest(http.MethodPost, url+"/", bytes.NewReader(bodies[i]))
				req.Header.Set(hookHeader, hookSecret)
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					continue
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Errorf("status %d", resp.StatusCode)
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	for i := range bodies {
		next <- i
	}
	close(next)
	wg.Wait()
	return lat
}
