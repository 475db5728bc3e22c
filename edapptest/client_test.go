package edapptest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
)

func ExampleNewServer() {
	srv := edapptest.NewServer()
	defer srv.Close()
	demo, err := srv.SeedDemo()
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	client := srv.Client()
	for u, err := range client.Users.All(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(u.Username, u.Email)
	}

	// carol is in Night Shift, below Warehouse: she reaches Manual Handling
	// (assigned to Warehouse) and Fire Safety (assigned to Company).
	carol := demo.UserIDs[2]
	courses, err := client.Users.Courses(ctx, carol)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range courses {
		fmt.Printf("%s: opened %v, %.0f%% complete\n", c.Title, c.Opened, c.PercentageCompleted)
	}
	// Output:
	// alice alice@example.com
	// bob bob@example.com
	// carol carol@example.com
	// dave dave@example.com
	// Manual Handling: opened true, 33% complete
	// Fire Safety: opened false, 0% complete
}

func TestClient(t *testing.T) {
	srv := edapptest.NewServer()
	defer srv.Close()
	ctx := context.Background()
	client := srv.Client()

	u, err := client.Users.Create(ctx, edapp.UserCreateParams{Username: "ann", ExternalID: "A1"})
	require.NoError(t, err)
	got, err := client.Users.Get(ctx, u.ID)
	require.NoError(t, err)
	assert.Equal(t, "ann", got.Username)
	_, err = client.Users.Create(ctx, edapp.UserCreateParams{Username: "bob", ExternalID: "A1"})
	assert.ErrorIs(t, err, edapp.ErrConflict)

	// Later options win over Client's defaults.
	srv.FailNext(1, http.StatusServiceUnavailable, 0)
	noRetry := srv.Client(edapp.WithRetry(edapp.RetryPolicy{}))
	_, err = noRetry.Users.Get(ctx, u.ID)
	var apiErr *edapp.APIError
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, http.StatusServiceUnavailable, apiErr.StatusCode)
	assert.Equal(t, "Service Unavailable", apiErr.Message)

	// The default client retries an injected failure and honours Retry-After.
	srv.FailNext(1, http.StatusServiceUnavailable, time.Second)
	start := time.Now()
	_, err = client.Users.Get(ctx, u.ID)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), 900*time.Millisecond)

	wrong, err := edapp.NewClient("wrong", edapp.WithBaseURL(srv.URL))
	require.NoError(t, err)
	_, err = wrong.Users.Get(ctx, u.ID)
	assert.ErrorIs(t, err, edapp.ErrUnauthorized)
}
