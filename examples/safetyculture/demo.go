package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/safetyculture"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// demo is the fake company: its EdApp account and the migrated copy in
// SafetyCulture.
type demo struct {
	edapp *edapptest.Server
	sc    *sctest.Server
	m     *fakedata.Migration
}

func (d *demo) Close() { d.sc.Close(); d.edapp.Close() }

// connect returns a client of the real service when
// SAFETYCULTURE_API_TOKEN is set, and otherwise one of a new fake, which
// the caller closes.
func connect() (*safetyculture.Client, *demo, error) {
	if os.Getenv(safetyculture.EnvAPIToken) != "" {
		sc, err := safetyculture.NewClientFromEnv(edapp.WithUserAgent("edapp-go-example"))
		return sc, nil, err
	}
	d, err := newDemo()
	if err != nil {
		return nil, nil, err
	}
	sc, err := safetyculture.NewClient(d.sc.Token, edapp.WithBaseURL(d.sc.URL))
	if err != nil {
		d.Close()
		return nil, nil, err
	}
	return sc, d, nil
}

// newDemo seeds a fake EdApp account and moves it to a fake SafetyCulture.
func newDemo() (*demo, error) {
	ed, err := edapptest.NewServer()
	if err != nil {
		return nil, err
	}
	d := &demo{edapp: ed}
	if err := fakedata.SeedAccount(d.edapp, fakedata.AccountSpec{Users: 60, Groups: 4, Courses: 5, Attempts: 600}); err != nil {
		d.edapp.Close()
		return nil, err
	}
	sc, err := sctest.NewServer()
	if err != nil {
		d.edapp.Close()
		return nil, err
	}
	d.sc = sc
	if d.m, err = fakedata.SeedMigration(sc, d.edapp); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// receiveOneDelivery registers a receiver on loopback, has the fake
// deliver a course completion to it, and prints the event the receiver
// verified.
func (d *demo) receiveOneDelivery(ctx context.Context, out io.Writer, sc *safetyculture.Client) error {
	secret, err := sc.Webhooks.Secret(ctx)
	if err != nil {
		return err
	}
	got := make(chan *safetyculture.WebhookEvent, 1)
	h, err := safetyculture.NewWebhookHandler(secret.Value(), func(_ context.Context, ev *safetyculture.WebhookEvent) error {
		select {
		case got <- ev:
		default:
		}
		return nil
	})
	if err != nil {
		return err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	hook, err := sc.Webhooks.Create(ctx, safetyculture.WebhookCreateParams{URL: "http://" + ln.Addr().String(), TriggerEvents: []string{"TRIGGER_EVENT_TRAINING_COURSE_COMPLETED"}})
	if err != nil {
		return err
	}
	defer sc.Webhooks.Delete(context.WithoutCancel(ctx), hook.ID)
	if err := d.completeACourse(ctx, sc); err != nil {
		return err
	}
	return awaitDelivery(ctx, out, got)
}

// completeACourse has a new hire complete the course made after the
// move, lesson by lesson.
func (d *demo) completeACourse(ctx context.Context, sc *safetyculture.Client) error {
	user, err := d.sc.AddUser(sctest.UserSpec{Email: "new.hire@example.com", FirstName: "New", LastName: "Hire"})
	if err != nil {
		return err
	}
	lessons, err := sc.Courses.Lessons(ctx, d.m.After.NewCourseID)
	if err != nil {
		return err
	}
	for _, l := range lessons {
		if err := d.sc.CompleteLesson(user, l.ID, 95, time.Time{}); err != nil {
			return err
		}
	}
	return nil
}

func awaitDelivery(ctx context.Context, out io.Writer, got <-chan *safetyculture.WebhookEvent) error {
	timer := time.NewTimer(deliveryWait)
	defer timer.Stop()
	select {
	case ev := <-got:
		fmt.Fprintf(out, "delivery verified: %s on %s %s\n", ev.Name(), ev.Resource.Type, ev.Resource.ID)
		return nil
	case <-timer.C:
		return errNoDelivery
	case <-ctx.Done():
		return ctx.Err()
	}
}
