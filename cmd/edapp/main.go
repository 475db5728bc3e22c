// Command edapp is a command-line tool for the EdApp REST API, built on the
// edapp-go SDK: an incremental export, a CSV user sync, webhook management
// and a local fake of the service.
//
//	go install github.com/edapp-go/edapp/cmd/edapp@latest
//	edapp --help
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	_ "time/tzdata" // zone names resolve where the system has no zone database (a scratch image)

	// CA roots for a system without them (a scratch image); the system's own
	// roots win wherever they exist.
	_ "golang.org/x/crypto/x509roots/fallback"
)

func main() {
	if p, ok := gcPercent(os.Getenv); ok {
		debug.SetGCPercent(p)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal, a second one kills at once.
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
