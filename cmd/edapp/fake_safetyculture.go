package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/edapp-go/edapp/edapptest/fakedata"

	"github.com/edapp-go/edapp/cmd/edapp/internal/fakeserve"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/safetyculture/sctest"
	"github.com/spf13/cobra"
)

// safetyCultureFlags are `edapp fake`'s flags for the SafetyCulture side.
type safetyCultureFlags struct {
	enabled, noAnomalies bool
	latency              time.Duration // the EdApp side's --latency, for both
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

// also returns what serves SafetyCulture's side beside the EdApp fake, or
// nothing without --safetyculture.
func (sc *safetyCultureFlags) also(f *fakeserve.Flags) []fakeserve.Also {
	if !sc.enabled {
		return nil
	}
	sc.latency = f.Latency
	return []fakeserve.Also{sc.serve}
}

// serve builds the migrated copy of the loaded EdApp fake in SafetyCulture
// and returns the handler answering both services on one port, and the
// lines SAFETYCULTURE_BASE_URL and SAFETYCULTURE_API_TOKEN (the same token).
func (sc *safetyCultureFlags) serve(edappFake *edapptest.Server, h http.Handler, stderr io.Writer) (http.Handler, []string, error) {
	scFake, err := sctest.NewUnstarted(sctest.WithToken(edappFake.Token), sctest.WithLatency(sc.latency))
	if err != nil {
		return nil, nil, err
	}
	var opts []fakedata.MigrationOption
	if sc.noAnomalies {
		opts = append(opts, fakedata.NoAnomalies())
	}
	m, err := fakedata.SeedMigration(scFake, edappFake, opts...)
	if err != nil {
		scFake.Close()
		return nil, nil, err
	}
	fmt.Fprintf(stderr, "SafetyCulture: %d users, %d completions carried, %d missing, %d after the move\n",
		len(m.Users), len(m.Carried), len(m.Planted.MissingCompletions), len(m.After.Completed))
	return withSafetyCulture(scFake, h), []string{"SAFETYCULTURE_BASE_URL=", "SAFETYCULTURE_API_TOKEN=" + edappFake.Token}, nil
}

// withSafetyCulture serves sc's paths and passes every other one to other,
// so that one port serves SafetyCulture beside EdApp.
func withSafetyCulture(sc *sctest.Server, other http.Handler) http.Handler {
	scH := sc.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, prefix := range []string{"/training/", "/feed/", "/webhooks/v1/", "/accounts/"} {
			if strings.HasPrefix(r.URL.Path, prefix) {
				scH.ServeHTTP(w, r)
				return
			}
		}
		other.ServeHTTP(w, r)
	})
}
