package safetyculture_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture"
)

// fakeTraining stands in for SafetyCulture in these examples: two courses,
// and a course-progress feed of two pages.
func fakeTraining() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /training/courses/v1", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"totalCount":2,"items":[{"id":"5f1c2a9e8b7d6c5a4b3e2d1f","title":"Manual Handling Basics","LessonCount":4},
			{"id":"6a2d3b0f9c8e7d6b5c4f3e2a","title":"Forklift Refresher","lessonCount":2}]}`)
	})
	mux.HandleFunc("GET /training/v1/feed/training-course-progress", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("cursor") == "" {
			fmt.Fprint(w, `{"metadata":{"next_page":"/training/v1/feed/training-course-progress?cursor=p2"},
				"data":[{"user_email":"mia.chen@example.com","course_title":"Manual Handling Basics","progress_percent":100}]}`)
			return
		}
		fmt.Fprint(w, `{"metadata":{"next_page":null},
			"data":[{"userEmail":"omar.haddad@example.com","courseTitle":"Forklift Refresher","progressPercent":50}]}`)
	})
	return httptest.NewServer(mux)
}

func Example() {
	srv := fakeTraining()
	defer srv.Close()
	ctx := context.Background()

	sc, err := safetyculture.NewClient("token", edapp.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	for c, err := range sc.Courses.All(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d lessons\n", c.Title, c.LessonCount)
	}
	all := &safetyculture.FeedOptions{CompletionStatus: safetyculture.CompletionAll}
	for p, err := range sc.Feeds.AllCourseProgress(ctx, all) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s, %s: %.0f%%\n", p.UserEmail, p.CourseTitle, p.ProgressPercent)
	}
	// Output:
	// Manual Handling Basics: 4 lessons
	// Forklift Refresher: 2 lessons
	// mia.chen@example.com, Manual Handling Basics: 100%
	// omar.haddad@example.com, Forklift Refresher: 50%
}

// A job that stops can resume the feed from the next_page it stored.
func ExampleFeedsService_ListCourseProgress() {
	srv := fakeTraining()
	defer srv.Close()
	ctx := context.Background()
	sc, err := safetyculture.NewClient("token", edapp.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	opts := &safetyculture.FeedOptions{Limit: 1000}
	for {
		page, err := sc.Feeds.ListCourseProgress(ctx, opts)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(len(page.Items), "rows; next:", page.NextPage)
		if page.NextPage == "" {
			break
		}
		opts = &safetyculture.FeedOptions{NextPage: page.NextPage} // store it to resume later
	}
	// Output:
	// 1 rows; next: /training/v1/feed/training-course-progress?cursor=p2
	// 1 rows; next:
}

func ExampleVerifySignature() {
	secret := "the secret from sc.Webhooks.Secret"
	body := []byte(`{"webhook_id":"a1b2","version":"3.0.0","event":{"event_types":["TRIGGER_EVENT_TRAINING_COURSE_COMPLETED"]}}`)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	signature := hex.EncodeToString(mac.Sum(nil)) // what x-safetyculture-signature carries

	fmt.Println(safetyculture.VerifySignature(body, signature, secret))
	fmt.Println(safetyculture.VerifySignature(body, signature, "another secret"))
	// Output:
	// <nil>
	// safetyculture: bad webhook signature: it does not match the body
}

func ExampleNewWebhookHandler() {
	h, err := safetyculture.NewWebhookHandler("the secret from sc.Webhooks.Secret",
		func(ctx context.Context, ev *safetyculture.WebhookEvent) error {
			log.Printf("%s on %s %s", ev.Name(), ev.Resource.Type, ev.Resource.ID)
			return nil // 200; an error answers 500, so SafetyCulture delivers again
		})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /safetyculture", h)
	fmt.Println("ready")
	// Output: ready
}
