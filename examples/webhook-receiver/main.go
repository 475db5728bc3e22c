// Command webhook-receiver receives webhook deliveries with
// edapp.NewWebhookHandler, authenticated by a shared secret header, and
// prints each typed event.
//
// With EDAPP_API_TOKEN unset it starts the fake service (edapptest),
// registers webhooks for all ten events pointing at itself, makes the fake
// send a few events, prints them and exits. With the token set it serves on
// -addr until interrupted; with -write and -public-url it also registers the
// webhooks with the real service, carrying the secret header.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/examples/internal/demo"
)

const secretHeader = "X-Webhook-Secret"

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address the receiver listens on")
	secret := flag.String("secret", os.Getenv("EDAPP_WEBHOOK_SECRET"), "shared secret deliveries must carry in the "+secretHeader+" header (default $EDAPP_WEBHOOK_SECRET)")
	write := flag.Bool("write", false, "against the real service: register webhooks for all ten events")
	publicURL := flag.String("public-url", "", "with -write: the public URL the service delivers to")
	flag.Parse()
	log.SetFlags(0)
	if *secret == "" {
		*secret = "change-me-" + fmt.Sprint(time.Now().UnixNano())
	}
	if err := run(*addr, *secret, *write, *publicURL); err != nil {
		log.Fatal(err)
	}
}

func run(addr, secret string, write bool, publicURL string) error {
	received := make(chan edapp.Event, 64)
	handler := edapp.NewWebhookHandler(func(ctx context.Context, ev edapp.Event) error {
		printEvent(ev)
		select {
		case received <- ev:
		default:
		}
		return nil // a non-nil error answers 500, so the sender retries
	}, edapp.WithSecretHeader(secretHeader, secret))

	mux := http.NewServeMux()
	mux.Handle("/edapp/events", handler)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	localURL := "http://" + ln.Addr().String() + "/edapp/events"
	fmt.Printf("receiving at %s (header %s required)\n", localURL, secretHeader)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	client, fake, err := demo.Connect()
	if err != nil {
		return err
	}
	if fake != nil {
		defer fake.Close()
		return driveFake(ctx, client, fake, localURL, secret, received)
	}
	if write {
		if publicURL == "" {
			return errors.New("-write needs -public-url: the real service must reach the receiver")
		}
		if err := register(ctx, client, publicURL, secret); err != nil {
			return err
		}
	}
	fmt.Println("waiting for deliveries; stop with Ctrl-C")
	<-ctx.Done()
	return nil
}

// register links every event name to url, with the secret header.
func register(ctx context.Context, client *edapp.Client, url, secret string) error {
	for _, name := range edapp.EventNames() {
		hook, err := client.Webhooks.Create(ctx, edapp.WebhookCreateParams{
			EventName: name, WebHookURL: url, Headers: map[string]string{secretHeader: secret},
		})
		if err != nil {
			return fmt.Errorf("registering %s: %w", name, err)
		}
		fmt.Printf("registered %s as webhook %s\n", name, hook.ID)
	}
	return nil
}

// driveFake makes the fake service send events to the receiver.
func driveFake(ctx context.Context, client *edapp.Client, fake *edapptest.Server, url, secret string, received <-chan edapp.Event) error {
	if err := register(ctx, client, url, secret); err != nil {
		return err
	}
	demoData, err := fake.SeedDemo() // publishing and progress in the seed send events too
	if err != nil {
		return err
	}
	if err := fake.PublishCourse(demoData.CourseIDs[1]); err != nil {
		return err
	}
	bob, mh := demoData.UserIDs[1], demoData.LessonIDs[0]
	if err := fake.CompleteLesson(demoData.UserIDs[2], mh[0], 88); err != nil {
		return err
	}
	if err := fake.SendCourseReminder(bob, demoData.CourseIDs[1], time.Now().Add(7*24*time.Hour)); err != nil {
		return err
	}
	if err := fake.Emit(edapp.EventRapidRefreshSessionStartedNotification, map[string]any{
		"userId": bob, "quizId": "rr-1", "quizTitle": "Weekly refresher", "quizSession": "1", "quizLink": "https://web.edapp.com/rapid-refresh/rr-1",
	}); err != nil {
		return err
	}
	// A delivery without the secret never reaches the handler's function.
	resp, err := http.Post(url, "application/json", nil)
	if err != nil {
		return err
	}
	resp.Body.Close()
	fmt.Printf("a delivery without the secret header was answered %s\n", resp.Status)
	if resp.StatusCode != http.StatusUnauthorized {
		return fmt.Errorf("a delivery without the secret was answered %s, want 401", resp.Status)
	}

	n := 0
	for _, d := range fake.Deliveries() {
		if d.OK() {
			n++
		}
	}
	fmt.Printf("the fake made %d deliveries, %d acknowledged, %d printed above\n", len(fake.Deliveries()), n, len(received))
	if n == 0 || n != len(fake.Deliveries()) || len(received) != n {
		return errors.New("some deliveries were not received")
	}
	return nil
}

func printEvent(ev edapp.Event) {
	switch e := ev.(type) {
	case *edapp.LessonCompletedEvent:
		fmt.Printf("%-48s %s completed %q (%q) with %.0f\n", e.Name(), e.UserName, e.LessonTitle, e.CourseTitle, e.Score)
	case *edapp.CourseCompletedEvent:
		fmt.Printf("%-48s %s completed %q\n", e.Name(), e.UserName, e.CourseTitle)
	case *edapp.CoursePublishedEvent:
		fmt.Printf("%-48s %q for %s\n", e.Name(), e.CourseTitle, e.UserName)
	case *edapp.CourseReminderWebHookEvent:
		fmt.Printf("%-48s %s: %q due %s\n", e.Name(), e.UserName, e.CourseTitle, e.DueDate)
	case *edapp.RapidRefreshSessionStartedNotificationEvent:
		fmt.Printf("%-48s %s: %q at %s\n", e.Name(), e.UserName, e.QuizTitle, e.QuizLink)
	case *edapp.UnknownEvent:
		fmt.Printf("%-48s (unknown to this SDK version, %d bytes kept)\n", e.EventName, len(e.Raw))
	default:
		fmt.Printf("%-48s %+v\n", ev.Name(), ev)
	}
}
