package edapp_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
)

// All walks every page of the account's users and yields them in order.
// Once the first page reports a total count, it fetches up to 4 pages at
// once (see WithPageConcurrency); it stops after the last one.
func ExampleUsersService_All() {
	srv, err := edapptest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	for _, name := range []string{"ana", "ben", "chloe", "dev", "emi"} {
		if _, err := srv.AddUser(edapptest.UserSpec{Username: name, Email: name + "@example.com"}); err != nil {
			log.Fatal(err)
		}
	}
	client := srv.Client()

	ctx := context.Background()
	opts := &edapp.UserListOptions{ListOptions: edapp.ListOptions{PageSize: 2}} // 3 pages
	for u, err := range client.Users.All(ctx, opts) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(u.Username, u.Email, u.Roles)
	}
	// Output:
	// ana ana@example.com [app-user prizing-user]
	// ben ben@example.com [app-user prizing-user]
	// chloe chloe@example.com [app-user prizing-user]
	// dev dev@example.com [app-user prizing-user]
	// emi emi@example.com [app-user prizing-user]
}

// Rapid Refresh notifications go out at 9 o'clock in the user's time zone,
// so a user without one needs it set. Update sends only the fields that are
// set: here the body is {"timeZone":"Australia/Sydney"}.
func ExampleUsersService_Update() {
	srv, err := edapptest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	id, err := srv.AddUser(edapptest.UserSpec{Username: "jane", FirstName: "Jane", Email: "jane@example.com"})
	if err != nil {
		log.Fatal(err)
	}
	client := srv.Client()

	ctx := context.Background()
	u, err := client.Users.Update(ctx, id, edapp.UserUpdateParams{TimeZone: edapp.Ptr("Australia/Sydney")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s (%s): %s\n", u.FirstName, u.Email, u.TimeZone)
	// Output:
	// Jane (jane@example.com): Australia/Sydney
}

// Find a user by the id of the outside system, the external id.
func ExampleUsersService_List() {
	srv, err := edapptest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	for i, name := range []string{"ana", "ben"} {
		if _, err := srv.AddUser(edapptest.UserSpec{Username: name, ExternalID: fmt.Sprintf("HR-%d", 100+i)}); err != nil {
			log.Fatal(err)
		}
	}
	client := srv.Client()

	page, err := client.Users.List(context.Background(), &edapp.UserListOptions{ExternalID: "HR-101"})
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range page.Items {
		fmt.Println(u.Username, u.ExternalID)
	}
	// Output:
	// ben HR-101
}

// findOrCreateUser returns the user with params.ExternalID, and creates it
// when there is none. External ids are unique in the account, so a create
// that meets 409 Conflict (another process was faster, or an earlier create
// whose answer was lost went through) looks again instead of failing.
func findOrCreateUser(ctx context.Context, client *edapp.Client, params edapp.UserCreateParams) (*edapp.User, bool, error) {
	find := func() (*edapp.User, error) {
		page, err := client.Users.List(ctx, &edapp.UserListOptions{ExternalID: params.ExternalID})
		if err != nil {
			return nil, err
		}
		for _, u := range page.Items {
			if u.ExternalID == params.ExternalID {
				return &u, nil
			}
		}
		return nil, nil
	}
	if u, err := find(); u != nil || err != nil {
		return u, false, err
	}
	u, err := client.Users.Create(ctx, params)
	if errors.Is(err, edapp.ErrConflict) {
		if found, ferr := find(); found != nil {
			return found, false, nil
		} else if ferr != nil {
			return nil, false, ferr
		}
	}
	return u, err == nil, err
}

// Find a user by external id, or create it: the usual first step when an
// HR system or an LMS pushes its people into EdApp. Running it twice
// creates nothing the second time.
func ExampleUsersService_List_findOrCreate() {
	srv, err := edapptest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()

	ctx := context.Background()
	params := edapp.UserCreateParams{ExternalID: "HR-1001", Username: "alice", Email: "alice@example.com"}
	for range 2 {
		u, created, err := findOrCreateUser(ctx, client, params)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(u.Username, u.ExternalID, "created:", created)
	}
	// Output:
	// alice HR-1001 created: true
	// alice HR-1001 created: false
}
