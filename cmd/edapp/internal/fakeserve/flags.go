// Package fakeserve serves the SDK's fake service (edapptest) on a port
// for `edapp fake`: its command-line flags, the listener, and the
// learner's side as HTML pages for a browser.
package fakeserve

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
)

// Flags are the settings of a fake served on its own, as `edapp fake`'s
// command line gives them.
type Flags struct {
	Addr    string               // address to listen on
	Token   string               // bearer token the fake accepts; random when empty
	Seed    bool                 // load the demo account (SeedDemo)
	Account fakedata.AccountSpec // then a synthetic account (SeedAccount), when it has users or attempts
	Latency time.Duration        // delay added to every request
	Budget  Budget               // request budget; zero: none
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
	a := f.Account
	switch {
	case min(a.Users, a.Groups, a.Collections, a.Courses, a.Lessons, a.Attempts) < 0:
		return fmt.Errorf("--users, --groups, --collections, --courses, --lessons and --attempts must not be negative")
	case f.Latency < 0:
		return fmt.Errorf("--latency must not be negative")
	case f.Redeliver < 0:
		return fmt.Errorf("--redeliver must not be negative")
	case f.Token != "" && strings.TrimSpace(f.Token) == "":
		return fmt.Errorf("--token must not be blank (leave it out for a random token)")
	}
	return nil
}

// Options returns the server options the flags ask for.
func (f *Flags) Options() []edapptest.Option {
	opts := []edapptest.Option{edapptest.WithLatency(f.Latency), edapptest.WithRedeliveries(f.Redeliver)}
	if f.Token != "" {
		opts = append(opts, edapptest.WithToken(f.Token))
	}
	if f.Budget.Limit > 0 {
		opts = append(opts, edapptest.WithBudget(f.Budget.Limit, f.Budget.Window))
	}
	return opts
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
