package edapp_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
)

// WithResponseInto fills a Response with what the call learned beyond the
// record: the status, the request id for a support case, how many attempts
// it took and how long it waited for the budget.
func ExampleWithResponseInto() {
	srv, err := edapptest.NewServer()
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	id, _ := srv.AddUser(edapptest.UserSpec{Username: "ann", ExternalID: "hr-1"})

	var resp edapp.Response
	user, err := client.Users.Get(ctx, id, edapp.WithResponseInto(&resp))
	if err != nil {
		panic(err)
	}
	fmt.Println(user.Username, resp.StatusCode, resp.Attempts)

	// On an iterator it is filled before each page's first item, so a
	// progress bar can use the service's total count.
	for _, err := range client.Users.All(ctx, nil, edapp.WithResponseInto(&resp)) {
		if err != nil {
			panic(err)
		}
		if total, ok := resp.Total(); ok {
			fmt.Println("users in all:", total)
		}
	}
	// Output:
	// ann 200 1
	// users in all: 1
}

// WithHeader adds a header to one call. The API token cannot be replaced
// this way.
func ExampleWithHeader() {
	srv, err := edapptest.NewServer()
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	client := srv.Client()

	_, err = client.Users.List(context.Background(), nil, edapp.WithHeader("X-Correlation-Id", "sync-2026-11-22"))
	fmt.Println(err)
	_, err = client.Users.List(context.Background(), nil, edapp.WithHeader("Authorization", "Bearer other"))
	fmt.Println(errors.Is(err, edapp.ErrInvalidInput))
	// Output:
	// <nil>
	// true
}

// WithRequestRetry gives one call a retry policy of its own, and
// WithMaxThrottle makes it fail at once rather than wait long for the
// budget: for a learner waiting on a page, say.
func ExampleWithRequestRetry() {
	srv, err := edapptest.NewServer()
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	client := srv.Client()

	srv.FailNext(1, 503, 0) // one failure, then the real answer
	var resp edapp.Response
	_, err = client.Users.List(context.Background(), nil,
		edapp.WithRequestRetry(edapp.RetryPolicy{MaxRetries: 1, MinWait: 10 * time.Millisecond}),
		edapp.WithMaxThrottle(2*time.Second),
		edapp.WithResponseInto(&resp))
	fmt.Println(err, resp.Attempts)
	// Output:
	// <nil> 2
}

// WithInFlight bounds the requests in flight across several calls: here
// two walks share four places, and each takes the places the other leaves
// free, so neither waits for the other to end.
func ExampleWithInFlight() {
	srv, err := edapptest.NewServer()
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	if err := fakedata.SeedAccount(srv, fakedata.AccountSpec{Users: 300, Attempts: 3000}); err != nil {
		panic(err)
	}
	client := srv.Client()
	ctx := context.Background()

	sem := make(chan struct{}, 4)
	small := edapp.ListOptions{PageSize: 100}
	done := make(chan int)
	go func() {
		n := 0
		for _, err := range client.Analytics.AllAttempts(ctx, &edapp.AttemptListOptions{ListOptions: small}, edapp.WithInFlight(sem)) {
			if err != nil {
				panic(err)
			}
			n++
		}
		done <- n
	}()
	users := 0
	for _, err := range client.Users.All(ctx, &edapp.UserListOptions{ListOptions: small}, edapp.WithInFlight(sem)) {
		if err != nil {
			panic(err)
		}
		users++
	}
	fmt.Println(users, "users,", <-done, "attempts; at most", cap(sem), "requests in flight:", srv.MaxInFlight() <= cap(sem))
	// Output: 300 users, 3000 attempts; at most 4 requests in flight: true
}
