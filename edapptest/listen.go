package edapptest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// ListenAndServe serves the fake on addr too (for tools in other languages,
// or a browser on another port), until ctx is done; it then shuts that
// listener down, giving requests in flight 5 seconds. Once it listens, it
// writes two lines to w that a shell can source:
//
//	EDAPP_BASE_URL=http://127.0.0.1:8080
//	EDAPP_API_TOKEN=…
//
// It returns nil after a shutdown that ctx asked for.
func (s *Server) ListenAndServe(ctx context.Context, addr string, w io.Writer) error {
	return s.listenAndServe(ctx, addr, w, nil)
}

// listenAndServe is ListenAndServe, calling ready (when not nil) once the
// port is bound and the lines are written.
func (s *Server) listenAndServe(ctx context.Context, addr string, w io.Writer, ready func(net.Addr)) error {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "EDAPP_BASE_URL=http://%s\nEDAPP_API_TOKEN=%s\n", ln.Addr(), s.Token); err != nil {
		ln.Close()
		return err
	}
	if ready != nil {
		ready(ln.Addr())
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
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
