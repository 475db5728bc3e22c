package export_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/edappsrc"
	"github.com/edapp-go/edapp/export/filedest"
)

// Export the attempts and users of an account into CSV files; a second
// run finds nothing new.
func Example() {
	srv, err := edapptest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	if err := fakedata.SeedAccount(srv, fakedata.AccountSpec{Users: 10, Attempts: 50}); err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "export")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	for range 2 {
		files, err := filedest.Open(dir, filedest.WithFormat("csv"))
		if err != nil {
			log.Fatal(err)
		}
		sum, err := export.Run(context.Background(), edappsrc.New(srv.Client()), export.Options{Kinds: []string{"users", "attempts"}}, files)
		files.Close()
		if err != nil {
			log.Fatal(err)
		}
		for _, k := range sum.Kinds {
			fmt.Println(k.Kind, k.Records, "fetched:", k.Notes[0])
		}
	}
	// Output:
	// users 10 fetched: 10 records  users.csv
	// attempts 50 fetched: 50 new records (0 already exported)  attempts/part-000001.csv
	// users 10 fetched: 10 records  users.csv
	// attempts 0 fetched: 0 new records (0 already exported)  nothing new
}
