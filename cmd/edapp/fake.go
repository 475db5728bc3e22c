package main

import (
	"context"
	"fmt"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/spf13/cobra"
)

type fakeFlags struct {
	addr     string
	token    string
	seed     bool
	users    int
	attempts int
	latency  time.Duration
	budget   int
}

func (a *app) fakeCommand() *cobra.Command {
	var f fakeFlags
	cmd := &cobra.Command{
		Use:   "fake",
		Short: "Serve a fake EdApp service for tools in any language",
		Long: `fake serves an in-memory fake of the EdApp REST API (v1 and v2, the same fake
the SDK's own tests use) until it is interrupted (Ctrl-C).

Its first two lines of output are EDAPP_BASE_URL=... and EDAPP_API_TOKEN=...,
ready for eval or a .env file. --seed loads a small demo account (a
collection, two courses, a group hierarchy, four users with progress).
--users and --attempts load a large synthetic account on top (5,000 users
and 200,000 attempts take a few seconds); --attempts alone spreads the
attempts over the users already there. --budget makes the fake answer 429
beyond that many requests in any 5 minutes, as the service does with 1400.`,
		Example: `  edapp fake --seed
  edapp fake --token dev > fake.env &   # then: set -a; . ./fake.env; set +a
  edapp fake --users 5000 --attempts 200000 --latency 50ms --budget 1400`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.users < 0 || f.attempts < 0 {
				return usagef("--users and --attempts must not be negative")
			}
			if f.budget < 0 {
				return usagef("--budget must not be negative")
			}
			return a.serveFake(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fl.StringVar(&f.token, "token", "", "bearer token the fake accepts (random when empty)")
	fl.BoolVar(&f.seed, "seed", false, "load a small demo account")
	fl.IntVar(&f.users, "users", 0, "load this many synthetic users")
	fl.IntVar(&f.attempts, "attempts", 0, "load this many synthetic lesson attempts, spread over the users")
	fl.DurationVar(&f.latency, "latency", 0, "delay added to every request")
	fl.IntVar(&f.budget, "budget", 0, "answer 429 beyond this many /v2 requests in any 5 minutes, as the service does with 1400 (0: no budget)")
	return cmd
}

func (a *app) serveFake(ctx context.Context, f fakeFlags) error {
	opts := []edapptest.Option{edapptest.WithToken(f.token)}
	if f.latency > 0 {
		opts = append(opts, edapptest.WithLatency(f.latency))
	}
	if f.budget > 0 {
		opts = append(opts, edapptest.WithBudget(f.budget, 5*time.Minute))
	}
	fake := edapptest.NewServer(opts...)
	defer fake.Close()
	if f.seed {
		if _, err := fake.SeedDemo(); err != nil {
			return err
		}
	}
	if f.users > 0 || f.attempts > 0 {
		start := time.Now()
		if err := fake.SeedLoad(f.users, f.attempts); err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "loaded %d users and %d attempts in %s\n", f.users, f.attempts, time.Since(start).Round(time.Millisecond))
	}
	fmt.Fprintln(a.stderr, "serving the fake service; stop with Ctrl-C")
	if err := fake.ListenAndServe(ctx, f.addr, a.stdout); err != nil {
		return err
	}
	fmt.Fprintln(a.stderr, "stopped")
	return nil
}
