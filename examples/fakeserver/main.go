// Command fakeserver serves the fake EdApp service (edapptest) so that tools
// in other languages can be pointed at it. It prints the base URL and the
// bearer token on its first two lines, then serves until SIGINT or SIGTERM.
//
//	go run ./examples/fakeserver -seed
//	curl -H "Authorization: Bearer $TOKEN" "$BASE/v2/users?pageSize=10"
//
// -users and -attempts load a large account (edapptest's SeedLoad), and
// -budget makes the fake answer 429 over the real service's budget of 1400
// /v2 requests per 5 minutes.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/edapp-go/edapp/edapptest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	token := flag.String("token", "", "bearer token the fake accepts (random when empty)")
	seed := flag.Bool("seed", false, "load a demo account: a collection, two courses with lessons, a group hierarchy and users with progress")
	users := flag.Int("users", 0, "generated learners to load")
	attempts := flag.Int("attempts", 0, "completed attempts to spread over the generated learners")
	budget := flag.Bool("budget", false, "answer 429 over 1400 /v2 requests in 5 minutes")
	flag.Parse()
	log.SetFlags(0)
	opts := []edapptest.Option{edapptest.WithToken(*token)}
	if *budget {
		opts = append(opts, edapptest.WithBudget(1400, 5*time.Minute))
	}
	if err := run(*addr, *seed, *users, *attempts, opts); err != nil {
		log.Fatal(err)
	}
}

func run(addr string, seed bool, users, attempts int, opts []edapptest.Option) error {
	fake := edapptest.NewServer(opts...)
	defer fake.Close()
	if seed {
		if _, err := fake.SeedDemo(); err != nil {
			return err
		}
	}
	if users > 0 || attempts > 0 {
		if err := fake.SeedLoad(users, attempts); err != nil {
			return err
		}
	}
	fmt.Fprintln(os.Stderr, "serving the fake service; stop with Ctrl-C")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return fake.ListenAndServe(ctx, addr, os.Stdout)
}
