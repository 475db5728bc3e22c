// Command fakeserver serves the fake EdApp service (edapptest) so that tools
// in other languages can be pointed at it. Once its port is bound it prints
// the base URL and the bearer token on its first two lines, then serves
// until SIGINT or SIGTERM.
//
//	go run ./examples/fakeserver -seed
//	curl -H "Authorization: Bearer $TOKEN" "$BASE/v2/users?pageSize=10"
//
// It takes the same flags as `edapp fake` (edapptest.Flags): -users,
// -groups, -collections, -courses, -lessons and -attempts load a large
// account of a real shape, -budget 1400/5m makes the fake answer 429 over
// the real service's budget, -latency slows every request.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/edapp-go/edapp/edapptest"
)

func main() {
	var f edapptest.Flags
	f.Register(flag.CommandLine)
	flag.Parse()
	log.SetFlags(0)
	if err := f.Check(); err != nil {
		log.Print(err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := f.Serve(ctx, os.Stdout, os.Stderr); err != nil {
		log.Fatal(err)
	}
}
