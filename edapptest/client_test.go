package edapptest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/webhook"
)

func ExampleNewServer() {
	srv, err := edapptest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	demo, err := fakedata.SeedDemo(srv)
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
	srv := edapptest.New(t)
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

func TestClientOptionsComeLast(t *testing.T) {
	srv := edapptest.New(t, edapptest.WithBudget(1400, 5*time.Minute))
	defer srv.Close()
	// The caller turns the SDK's limiter back on: one request, then a wait
	// far longer than the context allows.
	limited := srv.Client(edapp.WithRateLimit(rate.Every(time.Hour), 1))
	ctx := context.Background()
	_, err := limited.Users.List(ctx, nil)
	require.NoError(t, err)
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = limited.Users.List(short, nil)
	require.Error(t, err, "the limiter held the second request")
	assert.Len(t, srv.Requests(), 1, "the second request was never sent")

	// Without options the client is unlimited.
	free := srv.Client()
	for range 5 {
		_, err := free.Users.List(ctx, nil)
		require.NoError(t, err)
	}
}

func TestEmitTakesTheSDKsEventNames(t *testing.T) {
	srv := edapptest.New(t)
	defer srv.Close()
	var got []edapp.Event
	var mu sync.Mutex
	handler, err := webhook.NewHandler(func(_ context.Context, ev edapp.Event) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, ev)
		return nil
	})
	require.NoError(t, err)
	receiver := httptest.NewServer(handler)
	defer receiver.Close()
	_, err = srv.AddWebhook(edapptest.WebhookSpec{EventName: edapp.EventLessonCompleted, URL: receiver.URL})
	require.NoError(t, err)
	require.NoError(t, srv.Emit(edapp.EventLessonCompleted, map[string]any{"lessonId": "les_9", "score": 75}))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 1)
	assert.Equal(t, edapp.EventLessonCompleted, got[0].Name())
	assert.Equal(t, edapp.EventLessonCompleted, srv.Deliveries()[0].EventName)
}
