package redislimit_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/edapp-go/edapp/redislimit"
	"github.com/redis/go-redis/v9"
)

// Every replica of an app that uses one EdApp token builds its limiter with
// the same key, so all of them draw from the token's one budget. Pass it to
// the client with edapp.WithLimiter(l).
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer rdb.Close()

	l := redislimit.New(rdb, "edapp:budget:acme", 1400, 5*time.Minute+2*time.Second,
		redislimit.WithBulkShare(0.8)) // a nightly export leaves 20% for learners

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := l.Wait(ctx)
	var rerr *redislimit.Error
	switch {
	case errors.As(err, &rerr):
		log.Printf("Redis is unreachable; nothing was sent: %v", err)
	case errors.Is(err, context.DeadlineExceeded):
		log.Print("the budget is spent until after the deadline")
	case err == nil:
		fmt.Println("admitted")
	}
}
