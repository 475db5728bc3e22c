package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export/inbox"
	"github.com/edapp-go/edapp/webhook"
	"github.com/spf13/cobra"
)

// serveDrainTimeout bounds how long serve waits, after SIGTERM or SIGINT,
// for the deliveries in flight.
const serveDrainTimeout = 10 * time.Second

// serveHelp is the long help of "webhooks serve".
const serveHelp = `serve receives webhook deliveries and stores each event once in the events
table of the database (the same database "edapp export --db" writes, so that
a query can join live events with the export's users and courses).

It registers nothing: it is the receiving end of webhooks created with
"edapp webhooks create", whose --header carries the same secret:

  edapp webhooks create --event LessonCompletedEvent --url https://hooks.example.com/ --header X-Hook-Secret=VALUE
  edapp webhooks serve --db sqlite:edapp.db --addr 127.0.0.1:8080 --secret-header X-Hook-Secret=VALUE

A delivery is answered 200 only once its row is committed; a redelivery of a
stored event is answered 200 and changes nothing. When the database is down
or slow, or more than --max-in-flight deliveries are in flight, it answers
503 with Retry-After. A wrong secret gets 401, a method other than POST 405,
a body over 1 MiB 413, malformed JSON 400; none of these is stored.

It speaks plain HTTP: keep it on loopback (--addr 127.0.0.1:PORT, the
default) behind a reverse proxy that terminates TLS, so that the secret
header and the events never cross a network in the clear. For example,
Caddy on the same host, which gets the certificate itself:

  caddy reverse-proxy --from hooks.example.com --to 127.0.0.1:8080

--db defaults to $EDAPP_EXPORT_DB, --secret-header to $EDAPP_WEBHOOK_SECRET
(NAME=VALUE); the secret's value is compared in constant time and never
printed. Keep a database password off the command line: set
EDAPP_EXPORT_DB, or let PostgreSQL's PGPASSWORD or ~/.pgpass supply it. GET /healthz answers 200 while the database answers, 503 otherwise.
On SIGTERM or SIGINT it stops accepting, finishes the deliveries in flight
(up to 10 s), closes the database and exits 0. It logs one line per delivery.`

// serveOptions are what "webhooks serve" builds on, from the factory, and
// its flags.
type serveOptions struct {
	IO  *ioStreams
	Env func(string) string
	// OpenDB opens the --db database.
	OpenDB dbOpener

	db               string
	addr             string
	secretHeader     string
	insecureNoSecret bool
	path             string
	maxInFlight      int
	logFormat        string
}

// newCmdWebhooksServe makes "edapp webhooks serve"; runF, when not nil,
// runs instead of the server with the configuration the flags and the
// environment resolved to, once they are checked.
func newCmdWebhooksServe(f *factory, runF func(*serveConfig) error) *cobra.Command {
	o := serveOptions{IO: f.IO, Env: f.Env, OpenDB: openDB}
	cmd := &cobra.Command{
		Use:   "serve --db URL --addr HOST:PORT --secret-header NAME=VALUE [--path /]",
		Short: "Receive webhook deliveries into the export's database",
		Long:  serveHelp,
		Example: `  edapp webhooks serve --db sqlite:edapp.db --addr 127.0.0.1:8080 --secret-header X-Hook-Secret=VALUE
  EDAPP_EXPORT_DB=postgres://edapp@db/edapp EDAPP_WEBHOOK_SECRET=X-Hook-Secret=VALUE edapp webhooks serve --addr 127.0.0.1:8080 --path /edapp/events
  # the password in ~/.pgpass or PGPASSWORD; HTTPS from a proxy on the same host, such as Caddy:
  #   caddy reverse-proxy --from hooks.example.com --to 127.0.0.1:8080`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := resolveServe(o)
			if err != nil {
				return err
			}
			if runF != nil {
				return runF(&c)
			}
			return serveRun(cmd.Context(), &c)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.db, "db", "", "database URL: sqlite:PATH or postgres://... (default: $EDAPP_EXPORT_DB)")
	fl.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on: keep it on loopback, behind a proxy that terminates TLS")
	fl.StringVar(&o.secretHeader, "secret-header", "", "NAME=VALUE every delivery must carry (default: $EDAPP_WEBHOOK_SECRET)")
	fl.BoolVar(&o.insecureNoSecret, "insecure-no-secret", false, "accept deliveries without a secret header (anyone who can reach the address can write events)")
	fl.StringVar(&o.path, "path", "/", "URL path deliveries are posted to")
	fl.IntVar(&o.maxInFlight, "max-in-flight", 64, "deliveries handled at once; more are answered 503 with Retry-After")
	fl.StringVar(&o.logFormat, "log-format", "text", "log format: text or json")
	return cmd
}

// serveConfig is what serveOptions and the environment resolve to.
type serveConfig struct {
	serveOptions
	secretName, secretValue string
	log                     *slog.Logger
}

// resolveServe checks the flags, fills them from the environment, and returns
// usage errors that never quote the secret.
func resolveServe(o serveOptions) (serveConfig, error) {
	c := serveConfig{serveOptions: o}
	if c.db = dbURL(o.IO.ErrOut, o.Env, c.db != "", c.db); c.db == "" {
		return c, usagef("--db is required (or set EDAPP_EXPORT_DB)")
	}
	if c.secretHeader == "" {
		c.secretHeader = o.Env("EDAPP_WEBHOOK_SECRET")
	}
	switch {
	case c.secretHeader == "" && !c.insecureNoSecret:
		return c, usagef("--secret-header NAME=VALUE is required (or set EDAPP_WEBHOOK_SECRET), unless --insecure-no-secret is given")
	case c.secretHeader != "" && c.insecureNoSecret:
		return c, usagef("--secret-header and --insecure-no-secret exclude each other")
	case c.secretHeader != "":
		name, value, ok := strings.Cut(c.secretHeader, "=")
		if c.secretName, c.secretValue = strings.TrimSpace(name), value; !ok || c.secretName == "" || value == "" {
			return c, usagef("invalid secret header: want NAME=VALUE with both parts")
		}
	}
	if !validServePath(c.path) {
		return c, usagef("--path %q: want a path starting with /, of letters, digits and / . _ ~ -, other than /healthz", c.path)
	}
	if c.maxInFlight < 1 {
		return c, usagef("--max-in-flight must be at least 1")
	}
	log, err := serveLogger(o.IO.ErrOut, c.logFormat)
	if err != nil {
		return c, err
	}
	c.log = log
	// The handler's options are checked here, before the database is
	// opened: a bad one changes nothing.
	if _, err := webhook.NewHandler(func(context.Context, edapp.Event) error { return nil }, c.handlerOptions()...); err != nil {
		return c, usageError{err}
	}
	return c, nil
}

// handlerOptions are the webhook handler's options the flags give.
func (c serveConfig) handlerOptions() []webhook.Option {
	opts := []webhook.Option{webhook.WithLogger(c.log), webhook.WithMaxInFlight(c.maxInFlight)}
	if c.secretName != "" {
		opts = append(opts, webhook.WithSecretHeader(c.secretName, c.secretValue))
	}
	return opts
}

// validServePath reports whether path can be served as it is: a plain
// path, nothing http.ServeMux would read as a pattern.
func validServePath(path string) bool {
	if !strings.HasPrefix(path, "/") || path == "/healthz" {
		return false
	}
	for _, r := range path {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._~-", r)) {
			return false
		}
	}
	return true
}

// serveLogger logs to stderr.
func serveLogger(stderr io.Writer, format string) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(stderr, opts)), nil
	}
	return nil, usagef("--log-format %q: want text or json", format)
}

// serveRun serves the checked configuration c until ctx ends.
func serveRun(ctx context.Context, c *serveConfig) error {
	db, target, err := c.OpenDB(ctx, c.db)
	if err != nil {
		return err
	}
	defer db.Close()
	store, err := inbox.NewStore(ctx, db, inbox.Dialect(target.Dialect))
	if err != nil {
		return fmt.Errorf("database %s: %s", target.Redacted, cleanDBError(target, err))
	}
	defer store.Close()
	srv, err := newInbox(*c, store)
	if err != nil {
		return usageError{err}
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	c.log.Info("edapp webhooks serve: listening", "addr", ln.Addr().String(), "path", c.path,
		"db", target.Redacted, "secret_header", c.secretName)
	return serveUntilDone(ctx, srv, ln, c.log)
}

// newInbox is the server: the store's handler at the path, and /healthz.
func newInbox(c serveConfig, store *inbox.Store) (*http.Server, error) {
	h, err := store.Handler(c.handlerOptions()...)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(c.path, h)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := store.Ping(ctx); err != nil {
			http.Error(w, "database unreachable", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	return &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       20 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
	}, nil
}

// serveUntilDone serves on ln until ctx ends (SIGTERM, SIGINT), then stops
// accepting and waits up to serveDrainTimeout for the deliveries in flight.
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener, log *slog.Logger) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("edapp webhooks serve: stopping; finishing the deliveries in flight")
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), serveDrainTimeout)
	defer cancel()
	if err := srv.Shutdown(dctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	} else if err != nil {
		log.Warn("edapp webhooks serve: deliveries still in flight after the drain timeout were cut off")
		srv.Close()
	}
	log.Info("edapp webhooks serve: stopped")
	return nil
}
