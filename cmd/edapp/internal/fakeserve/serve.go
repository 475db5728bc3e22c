package fakeserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
)

// Also adds a second service on the fake's port: given the loaded EdApp
// fake and the handler that serves it, it returns the handler to serve in
// its place and the lines (NAME=value) to print after EDAPP_API_TOKEN.
type Also func(fake *edapptest.Server, h http.Handler, stderr io.Writer) (http.Handler, []string, error)

// Serve starts a fake as the flags say, loads its data, and serves it on
// Addr until ctx is done. Once the port is bound, and not before, it
// writes EDAPP_BASE_URL=... and EDAPP_API_TOKEN=... (and the lines also
// adds) to stdout and a line saying so to stderr, where it also reports
// the load and, with the demo account, its learners' home pages.
func (f *Flags) Serve(ctx context.Context, stdout, stderr io.Writer, also ...Also) error {
	if err := f.Check(); err != nil {
		return err
	}
	fake, err := edapptest.NewServer(f.Options()...)
	if err != nil {
		return err
	}
	defer fake.Close()
	learners, err := f.load(fake, stderr)
	if err != nil {
		return err
	}
	h, env := Handler(fake), []string(nil)
	for _, add := range also {
		var more []string
		if h, more, err = add(fake, h, stderr); err != nil {
			return err
		}
		env = append(env, more...)
	}
	ready := func(addr net.Addr) {
		fmt.Fprintf(stderr, "serving the fake service on http://%s; stop with Ctrl-C\n", addr)
		for _, id := range learners {
			fmt.Fprintf(stderr, "a learner's home: http://%s/learner/%s\n", addr, id)
		}
	}
	if err := listenAndServe(ctx, fake, h, f.Addr, stdout, env, ready); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "stopped")
	return nil
}

// load seeds the fake as the flags say and returns the demo's user ids.
func (f *Flags) load(fake *edapptest.Server, stderr io.Writer) (learners []string, err error) {
	if f.Seed {
		demo, err := fakedata.SeedDemo(fake)
		if err != nil {
			return nil, err
		}
		learners = demo.UserIDs
	}
	if a := f.Account; a.Users > 0 || a.Attempts > 0 {
		start := time.Now()
		if err := fakedata.SeedAccount(fake, a); err != nil {
			return nil, err
		}
		fmt.Fprintf(stderr, "loaded %d users and %d attempts in %s\n", a.Users, a.Attempts, time.Since(start).Round(time.Millisecond))
	}
	return learners, nil
}

// listenAndServe serves h, fake's handler, on addr until ctx is done; it
// then shuts the listener down, giving requests in flight 5 seconds. Once
// it listens, it writes lines to w that a shell can source (env's after
// the first two, each with the base URL appended when it ends in "="),
// then calls ready:
//
//	EDAPP_BASE_URL=http://127.0.0.1:8080
//	EDAPP_API_TOKEN=…
//
// It returns nil after a shutdown that ctx asked for.
func listenAndServe(ctx context.Context, fake *edapptest.Server, h http.Handler, addr string, w io.Writer, env []string, ready func(net.Addr)) error {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	out := fmt.Sprintf("EDAPP_BASE_URL=%s\nEDAPP_API_TOKEN=%s\n", base, fake.Token)
	for _, line := range env {
		if strings.HasSuffix(line, "=") {
			line += base
		}
		out += line + "\n"
	}
	if _, err := io.WriteString(w, out); err != nil {
		ln.Close()
		return err
	}
	ready(ln.Addr())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
