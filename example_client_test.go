package edapp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
)

func ExampleNewClient() {
	// Against the real service: edapp.NewClient(os.Getenv("EDAPP_API_TOKEN")).
	srv, err := edapptest.NewServer()
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	client, err := edapp.NewClient(srv.Token,
		edapp.WithBaseURL(srv.URL),
		edapp.WithRetry(edapp.RetryPolicy{MaxRetries: 2, MinWait: 100 * time.Millisecond, MaxWait: 2 * time.Second}),
		edapp.WithUserAgent("hr-sync/1.0"),
	)
	if err != nil {
		panic(err)
	}
	page, err := client.Users.List(context.Background(), nil)
	if err != nil {
		panic(err)
	}
	if total, ok := page.Total(); ok {
		fmt.Println("users:", total)
	}

	_, err = edapp.NewClient("")
	fmt.Println(err)
	// Output:
	// users: 0
	// edapp: invalid input: the API token is empty
}

func ExampleNewClientFromEnv() {
	// In an application: client, err := edapp.NewClientFromEnv(), with
	// EDAPP_API_TOKEN (and EDAPP_BASE_URL, if not the real service) set.
	srv, err := edapptest.NewServer()
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	env := map[string]string{"EDAPP_API_TOKEN": srv.Token, "EDAPP_BASE_URL": srv.URL}

	client, err := edapp.NewClientFromEnv(edapp.WithLookupEnv(func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}))
	if err != nil {
		panic(err)
	}
	fmt.Println(client.BaseURL() == srv.URL)

	_, err = edapp.NewClientFromEnv(edapp.WithLookupEnv(func(string) (string, bool) { return "", false }))
	fmt.Println(err)
	// Output:
	// true
	// EDAPP_API_TOKEN: edapp: invalid input: the API token is empty
}

func ExampleAPIError() {
	srv, err := edapptest.NewServer()
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	client := srv.Client()

	_, err = client.Users.Get(context.Background(), "no-such-user")
	switch {
	case errors.Is(err, edapp.ErrNotFound):
		fmt.Println("not found")
	case err != nil:
		panic(err)
	}
	var apiErr *edapp.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Method, apiErr.Path)
	}
	// Output:
	// not found
	// 404 GET /v2/users/no-such-user
}

func ExampleClient_Do() {
	srv, err := edapptest.NewServer()
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	client := srv.Client()

	// Anything the typed methods do not cover, with the same auth, rate
	// limit, retries and errors.
	var page struct {
		TotalCount int          `json:"totalCount"`
		Items      []courseStat `json:"items"`
	}
	query := struct {
		PageSize int `url:"pageSize"`
	}{10}
	if err := client.Do(context.Background(), http.MethodGet, "/v2/analytics/coursestatistics", query, nil, &page); err != nil {
		panic(err)
	}
	fmt.Println("courses with statistics:", page.TotalCount)
	// Output: courses with statistics: 0
}

type courseStat struct {
	CourseID string `json:"courseId"`
}

func ExampleParseLaunchLink() {
	issued := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	link, err := edapp.ParseLaunchLink("https://web.edapp.com/launch-lesson?token=5b1f0c2e-secret&lesson=les-42", issued)
	if err != nil {
		panic(err)
	}
	fmt.Println(link) // the token is hidden
	fmt.Println("lesson:", link.LessonID)
	fmt.Println("expires:", link.ExpiresAt().Format("3:04PM MST"))
	fmt.Println("expired at 9:25:", link.Expired(issued.Add(25*time.Minute)))
	// Output:
	// https://web.edapp.com/launch-lesson?lesson=les-42&token=REDACTED
	// lesson: les-42
	// expires: 9:20AM UTC
	// expired at 9:25: true
}
