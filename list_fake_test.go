package edapp_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
)

// pagesAsked lists the pages of /v2/users in the fake's request log, and
// clears it.
func pagesAsked(srv *edapptest.Server) []string {
	var pages []string
	for _, r := range srv.Requests() {
		if r.Path == "/v2/users" {
			q, _ := url.ParseQuery(r.RawQuery)
			pages = append(pages, q.Get("page"))
		}
	}
	srv.ResetRequests()
	return pages
}

func TestPageNextPageAgreesWithAllOnTheFake(t *testing.T) {
	ctx := context.Background()
	for _, users := range []int{7, 6, 0} { // a short last page; a full one, then an empty one; none
		t.Run(fmt.Sprint(users, " users, 3 a page"), func(t *testing.T) {
			srv := edapptest.NewServer()
			t.Cleanup(srv.Close)
			for i := range users {
				_, err := srv.AddUser(edapptest.UserSpec{Username: fmt.Sprint("user", i), Email: fmt.Sprintf("user%d@example.com", i)})
				require.NoError(t, err)
			}
			c := srv.Client()
			srv.ResetRequests()

			var hand []string
			opts := &edapp.UserListOptions{ListOptions: edapp.ListOptions{Page: 1, PageSize: 3}}
			for {
				p, err := c.Users.List(ctx, opts)
				require.NoError(t, err)
				for _, u := range p.Items {
					hand = append(hand, u.ID)
				}
				if p.NextPage == 0 {
					break
				}
				opts.Page = p.NextPage
			}
			handPages := pagesAsked(srv)

			var walked []string
			for u, err := range c.Users.All(ctx, &edapp.UserListOptions{ListOptions: edapp.ListOptions{PageSize: 3}}, edapp.WithPageConcurrency(1)) {
				require.NoError(t, err)
				walked = append(walked, u.ID)
			}
			assert.Len(t, hand, users)
			assert.Equal(t, hand, walked, "the same items")
			assert.Equal(t, handPages, pagesAsked(srv), "the same pages")

			var parallel []string
			for u, err := range c.Users.All(ctx, &edapp.UserListOptions{ListOptions: edapp.ListOptions{PageSize: 3}}) {
				require.NoError(t, err)
				parallel = append(parallel, u.ID)
			}
			assert.Equal(t, hand, parallel, "the same items, pages in parallel")
			assert.Subset(t, pagesAsked(srv), handPages, "pages past the last may be asked for in parallel, none is missed")
		})
	}
}

// Paging by hand: ask for a page, and follow NextPage until it is 0. The
// AllX iterators follow the same rule; they also drop an item repeated
// across pages and notice a page answered twice, which needs the walk's
// history.
func ExamplePage() {
	srv := edapptest.NewServer()
	defer srv.Close()
	for _, name := range []string{"ana", "ben", "chloe", "dev", "emi"} {
		if _, err := srv.AddUser(edapptest.UserSpec{Username: name, Email: name + "@example.com"}); err != nil {
			panic(err)
		}
	}
	client := srv.Client()

	opts := &edapp.UserListOptions{ListOptions: edapp.ListOptions{Page: 1, PageSize: 2}}
	for {
		page, err := client.Users.List(context.Background(), opts)
		if err != nil {
			panic(err)
		}
		var names []string
		for _, u := range page.Items {
			names = append(names, u.Username)
		}
		total, _ := page.Total()
		fmt.Printf("page %d of %d users: %s\n", opts.Page, total, strings.Join(names, ", "))
		if page.NextPage == 0 {
			break
		}
		opts.Page = page.NextPage
	}
	// Output:
	// page 1 of 5 users: ana, ben
	// page 2 of 5 users: chloe, dev
	// page 3 of 5 users: emi
}
