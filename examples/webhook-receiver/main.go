// Command webhook-receiver receives webhook deliveries with
// webhook.NewHandler, authenticated by a shared secret header, and
// prints each typed event.
//
// With EDAPP_API_TOKEN unset it starts the fake service (edapptest),
// registers webhooks for all ten events pointing at itself, makes the fake
// send a few events, prints them and exits. With the token set it serves on
// -addr until interrupted; with -write and -public-url it also registers the
// webhooks with the real service, carrying the secret header. Without
// -secret or EDAPP_WEBHOOK_SECRET it makes a random secret and prints it;
// links registered without it get 401 on every delivery.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/examples/internal/demo"
	"github.com/edapp-go/edapp/webhook"
)

const secretHeader = "X-Webhook-Secret"

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address the receiver listens on")
	secret := flag.String("secret", os.Getenv("EDAPP_WEBHOOK_SECRET"), "shared secret deliveries must carry in the "+secretHeader+" header (default $EDAPP_WEBHOOK_SECRET)")
	write := flag.Bool("write", false, "against the real service: register webhooks for all ten events")
	publicURL := flag.String("public-url", "", "with -write: the public URL the service delivers to")
	flag.Parse()
	log.SetFlags(0)
	s, err := secretOrNew(*secret, os.Stdout)
	if err != nil {
		log.Fatal(err)
	}
	if err := run(*addr, s, *write, *publicURL); err != nil {
		log.Fatal(err)
	}
}

// secretOrNew returns secret, or when it is empty a new random one, which it
// prints to out: the webhook links must carry it.
func secretOrNew(secret string, out io.Writer) (string, error) {
	if secret != "" {
		return secret, nil
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	secret = hex.EncodeToString(b)
	fmt.Fprintf(out, "no -secret or EDAPP_WEBHOOK_SECRET given; this run's secret, which webhook links must carry:\n  %s: %s\n", secretHeader, secret)
	return secret, nil
}

// newServer returns the receiver's server, with every phase of a connection
// bounded: the handler bounds the body itself (10 s), and ReadTimeout,
// WriteTimeout and IdleTimeout end whatever else a client could hold open.
func newServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       20 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
	}
}

func run(addr, secret string, write bool, publicURL string) error {
	if secret == "" {
		return errors.New("empty secret: the receiver would refuse every delivery; set -secret or EDAPP_WEBHOOK_SECRET")
	}
	received := make(chan edapp.Event, 64)
	localURL, stopServing, err := serve(addr, secret, received)
	if err != nil {
		return err
	}
	defer stopServing()
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

// serve serves webhook.NewHandler at /edapp/events on addr, printing each
// event and passing it on to received while there is room.
func serve(addr, secret string, received chan<- edapp.Event) (url string, stop func(), err error) {
	handler, err := webhook.NewHandler(func(ctx context.Context, ev edapp.Event) error {
		printEvent(ev)
		select {
		case received <- ev:
		default:
		}
		return nil // a non-nil error answers 500, so the sender retries
	}, webhook.WithSecretHeader(secretHeader, secret))
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/edapp/events", handler)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	srv := newServer(mux)
	go srv.Serve(ln)
	return "http://" + ln.Addr().String() + "/edapp/events", func() { srv.Close() }, nil
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
	demoData, err := fakedata.SeedDemo(fake) // publishing and progress in the seed send events too
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
	return checkDeliveries(fake, url, received)
}

// checkDeliveries shows that a delivery without the secret is refused and
// that every delivery the fake made was received.
func checkDeliveries(fake *edapptest.Server, url string, received <-chan edapp.Event) error {
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
