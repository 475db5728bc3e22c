// Command safetyculture shows the SafetyCulture Training client: it lists
// the courses, reads everyone's course progress from the data feed, and
// checks the signature of a webhook delivery.
//
// With SAFETYCULTURE_API_TOKEN unset it runs against the fake service
// (sctest), seeded as the migrated copy of a fake EdApp account
// (edapptest), and has the fake deliver a course completion to a receiver
// of its own. With the token set it reads the real service (read only);
// pass -delivery and -signature to check a delivery you saved.
//
//	go run ./examples/safetyculture
//	SAFETYCULTURE_API_TOKEN=... go run ./examples/safetyculture -delivery body.json -signature 3f9a...
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/edapp-go/edapp/safetyculture"
)

func main() {
	delivery := flag.String("delivery", "", "against the real service: a saved delivery's raw body, to check")
	signature := flag.String("signature", "", "with -delivery: its x-safetyculture-signature header")
	flag.Parse()
	log.SetFlags(0)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, *delivery, *signature); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer, delivery, signature string) error {
	sc, demo, err := connect()
	if err != nil {
		return err
	}
	if demo != nil {
		defer demo.Close()
	}
	if err := listCourses(ctx, out, sc); err != nil {
		return err
	}
	if err := readProgress(ctx, out, sc); err != nil {
		return err
	}
	if demo != nil {
		return demo.receiveOneDelivery(ctx, out, sc)
	}
	if delivery == "" {
		fmt.Fprintln(out, "no -delivery given: no webhook delivery to check")
		return nil
	}
	return checkSavedDelivery(ctx, out, sc, delivery, signature)
}

// listCourses prints how many courses there are, and the first few.
func listCourses(ctx context.Context, out io.Writer, sc *safetyculture.Client) error {
	n := 0
	for c, err := range sc.Courses.All(ctx, nil) {
		if err != nil {
			return fmt.Errorf("courses: %w", err)
		}
		if n++; n <= 3 {
			fmt.Fprintf(out, "course %s: %s (%d lessons)\n", c.ID, c.Title, c.LessonCount)
		}
	}
	fmt.Fprintf(out, "%d courses\n", n)
	return nil
}

// readProgress walks the course-progress feed, following next_page, and
// counts the completed and the unfinished rows.
func readProgress(ctx context.Context, out io.Writer, sc *safetyculture.Client) error {
	var done, open int
	opts := &safetyculture.FeedOptions{CompletionStatus: safetyculture.CompletionAll, Limit: safetyculture.MaxPageSize}
	for p, err := range sc.Feeds.AllCourseProgress(ctx, opts) {
		if err != nil {
			return fmt.Errorf("course progress: %w", err)
		}
		if p.CompletedAt.IsZero() {
			open++
		} else {
			done++
		}
	}
	fmt.Fprintf(out, "course progress: %d completed, %d not completed\n", done, open)
	return nil
}

// checkSavedDelivery checks a saved delivery against the organisation's
// signature secret, and names its event.
func checkSavedDelivery(ctx context.Context, out io.Writer, sc *safetyculture.Client, path, signature string) error {
	body, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	secret, err := sc.Webhooks.Secret(ctx)
	if err != nil {
		return fmt.Errorf("webhook secret: %w", err)
	}
	if err := safetyculture.VerifySignature(body, signature, secret.Value()); err != nil {
		return err
	}
	ev, err := safetyculture.ParseWebhookEvent(body)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "delivery verified: %s on %s %s\n", ev.Name(), ev.Resource.Type, ev.Resource.ID)
	return nil
}

// errNoDelivery is a demo whose delivery did not arrive in time.
var errNoDelivery = errors.New("the fake's delivery did not arrive")

// deliveryWait bounds the wait for the fake's delivery.
const deliveryWait = 10 * time.Second
