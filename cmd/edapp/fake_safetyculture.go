package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/safetyculture/sctest"
	"github.com/spf13/cobra"
)

// safetyCultureFlags are `edapp fake`'s flags for the SafetyCulture side.
type safetyCultureFlags struct {
	enabled, noAnomalies bool
}

func (sc *safetyCultureFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&sc.enabled, "safetyculture", false,
		"also serve SafetyCulture's Training API on the same port: the migrated copy of the EdApp account, with planted differences")
	cmd.Flags().BoolVar(&sc.noAnomalies, "no-anomalies", false, "with --safetyculture: a faithful copy, without the planted differences")
}

func (sc *safetyCultureFlags) check() error {
	if sc.noAnomalies && !sc.enabled {
		return usagef("--no-anomalies needs --safetyculture")
	}
	return nil
}

// serveWithSafetyCulture serves the EdApp fake the flags make and, on the
// same port, its migrated copy in SafetyCulture, until ctx is done. Once
// the port is bound it writes EDAPP_BASE_URL, EDAPP_API_TOKEN,
// SAFETYCULTURE_BASE_URL and SAFETYCULTURE_API_TOKEN (the same token) to
// stdout.
func serveWithSafetyCulture(ctx context.Context, f *edapptest.Flags, sc safetyCultureFlags, stdout, stderr io.Writer) error {
	edappFake := edapptest.NewServer(f.Options()...)
	defer edappFake.Close()
	if err := seedEdAppFake(edappFake, f); err != nil {
		return err
	}
	// The SafetyCulture fake listens nowhere of its own: it answers on
	// the EdApp fake's port, with the same --latency.
	scFake, err := sctest.NewUnstarted(sctest.WithToken(edappFake.Token), sctest.WithLatency(f.Latency))
	if err != nil {
		return err
	}
	defer scFake.Close()
	var opts []sctest.MigrationOption
	if sc.noAnomalies {
		opts = append(opts, sctest.NoAnomalies())
	}
	m, err := scFake.SeedMigration(edappFake, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "SafetyCulture: %d users, %d completions carried, %d missing, %d after the move\n",
		len(m.Users), len(m.Carried), len(m.Planted.MissingCompletions), len(m.After.Completed))
	return listenBoth(ctx, f.Addr, scFake.HandlerWith(edappFake.Handler()), edappFake.Token, stdout, stderr)
}

// seedEdAppFake loads what the shape flags ask for, as edapptest's Serve does.
func seedEdAppFake(fake *edapptest.Server, f *edapptest.Flags) error {
	if f.Seed {
		if _, err := fake.SeedDemo(); err != nil {
			return err
		}
	}
	if a := f.Account; a.Users > 0 || a.Attempts > 0 {
		return fake.SeedAccount(a)
	}
	return nil
}

func listenBoth(ctx context.Context, addr string, h http.Handler, token string, stdout, stderr io.Writer) error {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	if _, err := fmt.Fprintf(stdout, "EDAPP_BASE_URL=%s\nEDAPP_API_TOKEN=%s\nSAFETYCULTURE_BASE_URL=%s\nSAFETYCULTURE_API_TOKEN=%s\n",
		base, token, base, token); err != nil {
		ln.Close()
		return err
	}
	fmt.Fprintf(stderr, "serving the fake service on %s (EdApp and SafetyCulture); stop with Ctrl-C\n", base)
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
	fmt.Fprintln(stderr, "stopped")
	return nil
}
