package redislimit_test

import (
	"context"
	"errors"
	"log"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/redislimit"
)

// Every replica of an app that uses one EdApp token builds its limiter with
// the same key, so all of them draw from the token's one budget.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer rdb.Close()

	token := "API_TOKEN"
	l, err := redislimit.New(rdb, redislimit.KeyForToken(token), edapp.DefaultBudget, edapp.DefaultBudgetWindow,
		redislimit.WithBulkShare(0.8)) // a nightly export leaves 20% for learners
	if err != nil {
		log.Fatal(err)
	}
	client, err := edapp.NewClient(token, edapp.WithLimiter(l))
	if err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = client.Users.Get(ctx, "usr_1")
	var rerr *redislimit.Error
	switch {
	case errors.As(err, &rerr):
		log.Printf("Redis is unreachable; nothing was sent: %v", err)
	case errors.Is(err, edapp.ErrRateLimited):
		log.Print("the budget is spent until after the deadline")
	}
}
