// Command fakeserver serves the fake EdApp service (edapptest) so that tools
// in other languages can be pointed at it. It prints the base URL and the
// bearer token on its first two lines, then serves until SIGINT or SIGTERM.
//
//	go run ./examples/fakeserver -seed
//	curl -H "Authorization: Bearer $TOKEN" "$BASE/v2/users?pageSize=10"
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
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
	flag.Parse()
	log.SetFlags(0)
	if err := run(*addr, *token, *seed); err != nil {
		log.Fatal(err)
	}
}

func run(addr, token string, seed bool) error {
	fake := edapptest.NewServer(edapptest.WithToken(token))
	defer fake.Close()
	if seed {
		if _, err := fake.SeedDemo(); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("EDAPP_BASE_URL=http://%s\n", ln.Addr())
	fmt.Printf("EDAPP_API_TOKEN=%s\n", fake.Token)
	fmt.Fprintln(os.Stderr, "serving the fake service; stop with Ctrl-C")

	srv := &http.Server{Handler: fake.Handler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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
	fmt.Fprintln(os.Stderr, "stopped")
	return nil
}
