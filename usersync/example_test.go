package usersync_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/usersync"
)

// Plan a sync from a CSV, show it, then carry it out. A second plan is
// empty.
func ExampleNewPlan() {
	srv, err := edapptest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	for _, u := range []edapptest.UserSpec{{Username: "bob", ExternalID: "E1"}, {Username: "dave", ExternalID: "E3"}} {
		if _, err := srv.AddUser(u); err != nil {
			log.Fatal(err)
		}
	}
	client := srv.Client()
	ctx := context.Background()

	rows, err := usersync.ReadCSV(strings.NewReader("externalId,username,email\nE1,bob,bob@example.com\nE2,carol,carol@example.com\n"))
	if err != nil {
		log.Fatal(err) // a *usersync.InputError lists every bad row
	}
	acct, err := usersync.Load(ctx, client)
	if err != nil {
		log.Fatal(err)
	}
	plan, err := usersync.NewPlan(rows, acct, usersync.Options{DeleteMissing: true, MaxDeletes: usersync.DefaultMaxDeletes(acct)})
	if err != nil {
		log.Fatal(err) // an *InputError, or a *TooManyDeletesError over the cap
	}
	for _, acts := range [][]usersync.Action{plan.Creates, plan.Updates, plan.Deletes} {
		for _, a := range acts {
			fmt.Printf("%s %s %+v\n", a.Kind, a.ExternalID(), a.Changes)
		}
	}
	res, err := plan.Apply(ctx, client, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%+v\n", res)
	// Output:
	// create E2 [{Field:username From: To:carol} {Field:email From: To:carol@example.com}]
	// update E1 [{Field:email From: To:bob@example.com}]
	// delete E3 []
	// {Created:1 Updated:1 Deleted:1 Unknown:<nil>}
}
