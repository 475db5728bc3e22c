package edapp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/edapp-go/edapp/edapptest"
)

// Groups form a hierarchy: a course assigned to a group reaches the members
// of every group below it. This walks the tree from one group down.
func ExampleUserGroupsService_AllChildren() {
	srv, err := edapptest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	au, _ := srv.AddGroup(edapptest.GroupSpec{Name: "Australia"})
	nsw, _ := srv.AddGroup(edapptest.GroupSpec{Name: "New South Wales", ParentID: au, InviteCode: "NSW-2024"})
	_, _ = srv.AddGroup(edapptest.GroupSpec{Name: "Sydney", ParentID: nsw})
	_, _ = srv.AddGroup(edapptest.GroupSpec{Name: "Victoria", ParentID: au})
	client := srv.Client()
	ctx := context.Background()

	var walk func(id string, depth int)
	walk = func(id string, depth int) {
		for g, err := range client.UserGroups.AllChildren(ctx, id, nil) {
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("%*s%s\n", 2*depth, "", g.Name)
			if g.HasChildren {
				walk(g.ID, depth+1)
			}
		}
	}
	fmt.Println("Australia")
	walk(au, 1)
	// Output:
	// Australia
	//   New South Wales
	//     Sydney
	//   Victoria
}
