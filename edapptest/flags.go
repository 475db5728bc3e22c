package edapptest

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// Flags are the settings of a fake served on its own, as a command line
// gives them. `edapp fake` and examples/fakeserver take the same flags
// because both register them with Register; a program on
// github.com/spf13/pflag adds the same set with AddGoFlagSet.
type Flags struct {
	Addr    string        // address to listen on
	Token   string        // bearer token the fake accepts; random when empty
	Seed    bool          // load the demo account (SeedDemo)
	Account AccountSpec   // then a synthetic account (SeedAccount), when it has users or attempts
	Latency time.Duration // delay added to every request
	Budget  Budget        // request budget; zero: none
	// Redeliver sends every webhook delivery this many more times
	// (WithRedeliveries).
	Redeliver int
}

// Register defines the flags on fs, with Addr's default 127.0.0.1:8080.
func (f *Flags) Register(fs *flag.FlagSet) {
	f.Addr = "127.0.0.1:8080"
	fs.StringVar(&f.Addr, "addr", f.Addr, "address to listen on (port 0: any free port)")
	fs.StringVar(&f.Token, "token", "", "bearer token the fake accepts (random when empty)")
	fs.BoolVar(&f.Seed, "seed", false, "load a small demo account: a collection, two courses, a group hierarchy, four users with progress")
	a := &f.Account
	fs.IntVar(&a.Users, "users", 0, "load this many synthetic learners")
	fs.IntVar(&a.Groups, "groups", 0, "synthetic user groups, some with children; learners belong to 0-3 of them (0: one group holding every learner)")
	fs.IntVar(&a.Collections, "collections", 0, "synthetic course collections; each course sits in 0-2 of them")
	fs.IntVar(&a.Courses, "courses", 0, "synthetic courses (0: the courses there, or one when there is none)")
	fs.IntVar(&a.Lessons, "lessons", 0, "lessons per synthetic course (0: 3)")
	fs.IntVar(&a.Attempts, "attempts", 0, "synthetic completed attempts, spread over the learners and the lessons they reach")
	fs.DurationVar(&f.Latency, "latency", 0, "delay added to every request")
	fs.Var(&f.Budget, "budget", "answer 429 beyond N /v2 requests in any 5 minutes, or in any WINDOW with N/WINDOW (30/10s); the service allows 1400/5m")
	fs.IntVar(&f.Redeliver, "redeliver", 0, "send every webhook delivery this many more times, to test a receiver against repeated deliveries")
}

// Check reports a value no fake can take.
func (f *Flags) Check() error {
	if err := f.Account.check(); err != nil {
		return fmt.Errorf("--users, --groups, --collections, --courses, --lessons and --attempts must not be negative")
	}
	switch {
	case f.Latency < 0:
		return fmt.Errorf("--latency must not be negative")
	case f.Redeliver < 0:
		return fmt.Errorf("--redeliver must not be negative")
	}
	return nil
}

// Options returns the server options the flags ask for.
func (f *Flags) Options() []Option {
	opts := []Option{WithToken(f.Token), WithLatency(f.Latency), WithRedeliveries(f.Redeliver)}
	if f.Budget.Limit > 0 {
		opts = append(opts, WithBudget(f.Budget.Limit, f.Budget.Window))
	}
	return opts
}

// Serve starts a fake as the flags say, loads its data, and serves it on
// Addr until ctx is done. Once the port is bound, and not before, it
// writes EDAPP_BASE_URL=... and EDAPP_API_TOKEN=... to stdout and a line
// saying so to stderr, where it also reports the load.
func (f *Flags) Serve(ctx context.Context, stdout, stderr io.Writer) error {
	if err := f.Check(); err != nil {
		return err
	}
	fake := NewServer(f.Options()...)
	defer fake.Close()
	if f.Seed {
		if _, err := fake.SeedDemo(); err != nil {
			return err
		}
	}
	if a := f.Account; a.Users > 0 || a.Attempts > 0 {
		start := time.Now()
		if err := fake.SeedAccount(a); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "loaded %d users and %d attempts in %s\n", a.Users, a.Attempts, time.Since(start).Round(time.Millisecond))
	}
	ready := func(addr net.Addr) {
		fmt.Fprintf(stderr, "serving the fake service on http://%s; stop with Ctrl-C\n", addr)
	}
	if err := fake.listenAndServe(ctx, f.Addr, stdout, ready); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "stopped")
	return nil
}

// Budget is a request budget: at most Limit requests in any Window. As a
// flag it reads "N" (in any 5 minutes, the real service's window) or
// "N/WINDOW", such as "30/10s" or "1400/5m"; "0" means none.
type Budget struct {
	Limit  int
	Window time.Duration
}

// ParseBudget reads "N" or "N/WINDOW". N must not be negative and WINDOW
// must be a positive duration.
func ParseBudget(s string) (Budget, error) {
	n, w, hasWindow := strings.Cut(strings.TrimSpace(s), "/")
	limit, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil || limit < 0 {
		return Budget{}, fmt.Errorf("budget %q: want N or N/WINDOW, such as 1400/5m, with N a whole number not below 0", s)
	}
	b := Budget{Limit: limit, Window: 5 * time.Minute}
	if hasWindow {
		if b.Window, err = time.ParseDuration(strings.TrimSpace(w)); err != nil || b.Window <= 0 {
			return Budget{}, fmt.Errorf("budget %q: the window must be a positive duration, such as 10s or 5m", s)
		}
	}
	return b, nil
}

// String writes the budget as [ParseBudget] reads it.
func (b *Budget) String() string {
	if b == nil || b.Limit == 0 {
		return "0"
	}
	w := b.Window.String() // "5m0s", "1h0m0s", "10s"
	if strings.HasSuffix(w, "m0s") {
		w = strings.TrimSuffix(w, "0s")
	}
	if strings.HasSuffix(w, "h0m") {
		w = strings.TrimSuffix(w, "0m")
	}
	return strconv.Itoa(b.Limit) + "/" + w
}

// Set parses a flag value (flag.Value).
func (b *Budget) Set(s string) error {
	v, err := ParseBudget(s)
	if err == nil {
		*b = v
	}
	return err
}

// Type names the value in pflag's help.
func (b *Budget) Type() string { return "N[/WINDOW]" }
