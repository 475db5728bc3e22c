package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edapp-go/edapp/export/dbtest"
)

// TestServeCrash kills "edapp webhooks serve" with SIGKILL twice while 16
// senders post 2,000 deliveries, a third of them twice, each retrying until
// it gets a 2xx; the server restarts on the same database each time. Every
// delivery answered 2xx must be stored exactly once.
func TestServeCrash(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and kills server processes")
	}
	// The two run side by side: each spends most of its time waiting for
	// its disk or its database.
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		testServeCrash(t, dbtest.SQLite(t))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		testServeCrash(t, dbtest.Postgres(t))
	})
}

func testServeCrash(t *testing.T, dbURL string) {
	const distinct, senders = 2000, 16
	bodies, keys := make([][]byte, distinct), make([]string, distinct)
	jobs := make([]int, 0, distinct+distinct/3)
	for i := range distinct {
		bodies[i], keys[i] = lessonDelivery(i)
		jobs = append(jobs, i)
		if i%3 == 0 {
			jobs = append(jobs, i)
		}
	}
	rand.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })

	child := startChildInbox(t, dbURL)
	var sent atomic.Int64
	queue := make(chan int)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: senders}}
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range queue {
				if err := child.deliverUntilOK(ctx, client, bodies[i]); err != nil {
					t.Errorf("delivery %d: %v", i, err)
				}
				sent.Add(1)
			}
		}()
	}
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		for _, at := range []float64{0.15 + 0.3*rand.Float64(), 0.55 + 0.3*rand.Float64()} {
			for float64(sent.Load()) < at*float64(len(jobs)) && ctx.Err() == nil {
				time.Sleep(time.Millisecond)
			}
			child.kill()
			child.start()
		}
	}()
	for _, i := range jobs {
		queue <- i
	}
	close(queue)
	wg.Wait()
	<-killed
	if code := child.terminate(); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
	if n := strings.Count(child.log.String(), "serve: listening"); n != 3 {
		t.Errorf("started %d times, want 3", n)
	}
	checkStoredOnce(t, dbURL, keys)
}

// checkStoredOnce checks that events holds exactly keys, each once.
func checkStoredOnce(t *testing.T, dbURL string, keys []string) {
	t.Helper()
	db, _ := openTestDB(t, dbURL)
	rows, err := db.Query(`SELECT event_key FROM events`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	stored := map[string]int{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		stored[k]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if stored[k] != 1 {
			t.Errorf("delivery %d answered 2xx is stored %d times", i, stored[k])
		}
	}
	if len(stored) != len(keys) {
		t.Errorf("%d rows, want %d", len(stored), len(keys))
	}
}

// TestServeDrainsOnSIGTERM: a delivery whose body is still arriving when
// SIGTERM comes is finished, answered 200 and stored; new connections are
// refused; the process exits 0.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.SQLite(t)
	child := startChildInbox(t, dbURL)
	addr := strings.TrimPrefix(child.URL(), "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body, key := lessonDelivery(7)
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: inbox\r\n%s: %s\r\nContent-Length: %d\r\n\r\n%s", hookHeader, hookSecret, len(body), body[:20])
	time.Sleep(200 * time.Millisecond) // the request reaches the handler
	exited := make(chan int, 1)
	go func() { exited <- child.terminate() }()
	for deadline := time.Now().Add(30 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break // the listener is closed
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("serve still accepts connections after SIGTERM")
		}
		time.Sleep(10 * time.Millisecond)
	}
	conn.Write(body[20:])
	answer := make([]byte, 64)
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	n, _ := conn.Read(answer)
	if !bytes.HasPrefix(answer[:n], []byte("HTTP/1.1 200")) {
		t.Errorf("in-flight delivery answered %q", answer[:n])
	}
	if code := <-exited; code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	if log := child.log.String(); !strings.Contains(log, "stopping") || !strings.Contains(log, "result=stored") {
		t.Errorf("log:\n%s", log)
	}
	checkStoredOnce(t, dbURL, []string{key})
}
