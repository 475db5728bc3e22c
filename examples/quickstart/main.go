// Command quickstart runs the intended flow of an embedding application,
// end to end:
//
//  1. register a webhook for LessonCompletedEvent, received by
//     webhook.NewHandler with a shared secret header;
//  2. create a user group with an invite code, give it a course, and create
//     a learner in it (with a time zone, for Rapid Refresh);
//  3. list the learner's courses and lessons;
//  4. fetch a fresh launch link for a lesson and show when it expires;
//  5. the learner opens and completes the lesson;
//  6. read completion from the courses call and from the detailed report;
//  7. receive the LessonCompletedEvent.
//
// With EDAPP_API_TOKEN unset it runs against a fake of the service
// (edapptest) on loopback and needs no account. With the token set it talks
// to the real service and only reads, unless given -write; a real learner
// then has to complete the lesson, so steps 5 to 7 are skipped.
//
// To play the learner in a browser instead, run `edapp fake --seed`: its
// launch links open pages whose form completes the lesson.
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
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/examples/internal/demo"
	v1 "github.com/edapp-go/edapp/v1"
	"github.com/edapp-go/edapp/webhook"
)

func main() {
	write := flag.Bool("write", false, "against the real service: create the group, user and webhook (otherwise read only)")
	hookURL := flag.String("webhook-url", "", "against the real service with -write: a public URL that receives deliveries")
	flag.Usage = usage
	flag.Parse()
	log.SetFlags(0)

	client, srv, err := demo.Connect()
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if srv == nil {
		if err := live(ctx, client, *write, *hookURL); err != nil {
			log.Fatal(err)
		}
		return
	}
	defer srv.Close()
	if err := fake(ctx, client, srv); err != nil {
		log.Fatal(err)
	}
}

// app is the embedding application's side of the flow: what steps 1 to
// 3 set up.
type app struct {
	legacy    *v1.Client
	courseID  string
	lessonIDs []string
	user      *edapp.User
	events    <-chan edapp.Event // from the webhook receiver
	stop      func()
}

// fake runs the whole flow against edapptest.
func fake(ctx context.Context, client *edapp.Client, srv *edapptest.Server) error {
	a, err := setUp(ctx, client, srv)
	if err != nil {
		return err
	}
	defer a.stop()
	for _, run := range []func(context.Context, *app, *edapptest.Server) error{launch, learn, readCompletion, receiveCompletion} {
		if err := run(ctx, a, srv); err != nil {
			return err
		}
	}
	fmt.Println("\nDone.")
	return nil
}

// launch is step 4: a fresh launch link for the first lesson.
func launch(ctx context.Context, a *app, _ *edapptest.Server) error {
	step(4, "Get a fresh launch link for the first lesson")
	link, err := a.legacy.Users.LaunchLink(ctx, a.user.ID, a.lessonIDs[0])
	if err != nil {
		return err
	}
	fmt.Printf("   %s\n   valid until %s (%s from now); String() hides the token\n",
		link, link.ExpiresAt().Local().Format("3:04PM MST"), time.Until(link.ExpiresAt()).Round(time.Minute))
	return nil
}

// learn is step 5: what the learner does in the app, played by the fake
// (`edapp fake --seed` serves pages that let a browser play it).
func learn(_ context.Context, a *app, srv *edapptest.Server) error {
	step(5, "The learner opens the lesson and completes it (the fake plays the learner)")
	attemptID, err := srv.OpenLesson(a.user.ID, a.lessonIDs[0])
	if err != nil {
		return err
	}
	fmt.Printf("   opened: attempt %s\n", attemptID)
	for _, in := range []edapptest.Interaction{
		{Slide: "Alarm points", Type: edapptest.InteractionView, Duration: 95 * time.Second},
		{Slide: "Alarm points", Type: edapptest.InteractionSlide, Correct: true},
	} {
		in.UserID, in.LessonID = a.user.ID, a.lessonIDs[0]
		if err := srv.AddInteraction(in); err != nil {
			return err
		}
	}
	if err := srv.CompleteLesson(a.user.ID, a.lessonIDs[0], 92); err != nil {
		return err
	}
	fmt.Println("   completed with a score of 92")
	return nil
}

// readCompletion is step 6: completion from the courses call and from the
// detailed report.
func readCompletion(ctx context.Context, a *app, _ *edapptest.Server) error {
	step(6, "Read completion: the courses call, then the detailed report")
	courses, err := a.legacy.Users.Courses(ctx, a.user.ID)
	if err != nil {
		return err
	}
	printCourses(courses)
	report, err := a.legacy.Reports.UserCourse(ctx, a.user.ID, a.courseID)
	if err != nil {
		return err
	}
	for _, l := range report.Lessons {
		fmt.Printf("   report: %q completed=%t, %.0fs spent, %d slide(s)\n", l.Title, l.Completed, l.Duration, len(l.Slides))
		for _, s := range l.Slides {
			for _, in := range s.Interactions {
				if in.Result != nil {
					fmt.Printf("           slide %q: %s, correct=%t\n", s.Name, in.Type, in.Result.Correct)
				}
			}
		}
	}
	return nil
}

// receiveCompletion is step 7: the webhook receiver gets the event.
func receiveCompletion(_ context.Context, a *app, _ *edapptest.Server) error {
	step(7, "Receive the LessonCompletedEvent")
	select {
	case ev := <-a.events:
		e, ok := ev.(*edapp.LessonCompletedEvent)
		if !ok {
			return fmt.Errorf("received %s, want LessonCompletedEvent", ev.Name())
		}
		fmt.Printf("   %s: %s completed %q in %q with %.0f at %s\n", e.Name(), e.UserName, e.LessonTitle, e.CourseTitle, e.Score, e.Timestamp)
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("no LessonCompletedEvent arrived")
	}
}

// setUp runs steps 1 to 3 against the fake: a course, a webhook and its
// receiver, a group and a learner. The caller stops the receiver.
func setUp(ctx context.Context, client *edapp.Client, srv *edapptest.Server) (*app, error) {
	fmt.Printf("Using the built-in fake service at %s (set EDAPP_API_TOKEN to use the real one)\n\n", srv.URL)

	// Courses are authored in the admin portal, not through the API: seed one.
	courseID, lessonIDs, err := srv.AddCourse(edapptest.CourseSpec{
		Title:   "Fire Safety",
		Lessons: []edapptest.LessonSpec{{Title: "Raising the alarm", MinimumScore: 70}, {Title: "Using an extinguisher"}},
	})
	if err != nil {
		return nil, err
	}
	a := &app{courseID: courseID, lessonIDs: lessonIDs}
	if err := registerWebhook(ctx, client, a); err != nil {
		return nil, err
	}
	if err := addLearner(ctx, client, a); err != nil {
		a.stop()
		return nil, err
	}
	step(3, "List the learner's courses")
	courses, err := a.legacy.Users.Courses(ctx, a.user.ID)
	if err != nil {
		a.stop()
		return nil, err
	}
	printCourses(courses)
	return a, nil
}

// registerWebhook is step 1: start the app's receiver and register it for
// LessonCompletedEvent, with a shared secret header.
func registerWebhook(ctx context.Context, client *edapp.Client, a *app) error {
	step(1, "Register a webhook for LessonCompletedEvent")
	events, receiverURL, stop, err := startReceiver("quickstart-secret")
	if err != nil {
		return err
	}
	hook, err := client.Webhooks.Create(ctx, edapp.WebhookCreateParams{
		EventName:  edapp.EventLessonCompleted,
		WebHookURL: receiverURL,
		Headers:    map[string]string{"X-Webhook-Secret": "quickstart-secret"},
	})
	if err != nil {
		stop()
		return err
	}
	fmt.Printf("   webhook %s: %s -> %s (fields: %d)\n", hook.ID, hook.EventName, hook.WebHookURL, len(hook.MessageFormat))
	a.events, a.stop = events, stop
	return nil
}

// addLearner is step 2: a group with an invite code and the course, and a
// learner in it.
func addLearner(ctx context.Context, client *edapp.Client, a *app) error {
	step(2, "Create a group with an invite code, give it the course, add a learner")
	group, err := client.UserGroups.Create(ctx, edapp.UserGroupCreateParams{Name: "Warehouse", InviteCode: "WAREHOUSE-2026"})
	if err != nil {
		return err
	}
	if a.legacy, err = v1.New(client); err != nil {
		return err
	}
	if _, err := a.legacy.UserGroups.Save(ctx, v1.UserGroup{ID: group.ID, Name: group.Name, Courses: []string{a.courseID}}); err != nil {
		return err
	}
	user, err := client.Users.Create(ctx, edapp.UserCreateParams{
		Username:   "ann.lee",
		Email:      "ann.lee@example.com",
		FirstName:  "Ann",
		LastName:   "Lee",
		ExternalID: "hr-1001",
		Roles:      []edapp.Role{edapp.RoleAppUser, edapp.RolePrizingUser},
		UserGroups: []string{group.ID},
	})
	if err != nil {
		return err
	}
	// Rapid Refresh notifications go out at 9 o'clock in the user's zone.
	if _, err := client.Users.Update(ctx, user.ID, edapp.UserUpdateParams{TimeZone: edapp.Ptr("Australia/Sydney")}); err != nil {
		return err
	}
	fmt.Printf("   group %q (%s, invite code %s); user %s (%s) in it, time zone set\n", group.Name, group.ID, group.InviteCode, user.Username, user.ID)
	a.user = user
	return nil
}

// live reads from the real service, and with write also creates things.
func live(ctx context.Context, client *edapp.Client, write bool, hookURL string) error {
	fmt.Printf("Using the real service at %s\n\n", client.BaseURL())
	if err := readLive(ctx, client); err != nil {
		return err
	}
	if !write {
		fmt.Println("\nRead only. Run with -write to create a group, a user and (with -webhook-url) a webhook.")
		return nil
	}
	return writeLive(ctx, client, hookURL)
}

// readLive is the read-only part of live: steps 1 to 3.
func readLive(ctx context.Context, client *edapp.Client) error {
	step(1, "Users (first page)")
	users, err := client.Users.List(ctx, &edapp.UserListOptions{ListOptions: edapp.ListOptions{PageSize: 5}})
	if err != nil {
		return err
	}
	if total, ok := users.Total(); ok {
		fmt.Printf("   %d users in the account\n", total)
	}
	for _, u := range users.Items {
		fmt.Printf("   - %s %s (%s)\n", u.ID, u.Username, u.Email)
	}
	step(2, "Courses in the catalog (first page)")
	courses, err := client.Catalog.ListCourses(ctx, &edapp.ListOptions{PageSize: 5})
	if err != nil {
		return err
	}
	for _, c := range courses.Items {
		fmt.Printf("   - %s %q (%s)\n", c.ID, c.Title, c.Status)
	}
	if len(users.Items) > 0 {
		step(3, "The first user's courses, with launch links")
		legacy, err := v1.New(client)
		if err != nil {
			return err
		}
		uc, err := legacy.Users.Courses(ctx, users.Items[0].ID)
		if err != nil {
			return err
		}
		printCourses(uc)
	}
	return nil
}

// writeLive is live's -write part: step 4 creates a group and a learner,
// and with hookURL a webhook.
func writeLive(ctx context.Context, client *edapp.Client, hookURL string) error {
	step(4, "Create a group and a learner")
	suffix := time.Now().Format("20060102-150405")
	group, err := client.UserGroups.Create(ctx, edapp.UserGroupCreateParams{Name: "edapp-go quickstart " + suffix, InviteCode: "QS" + suffix})
	if err != nil {
		return err
	}
	user, err := client.Users.Create(ctx, edapp.UserCreateParams{
		Username: "quickstart-" + suffix, Email: "quickstart-" + suffix + "@example.com",
		Roles: []edapp.Role{edapp.RoleAppUser, edapp.RolePrizingUser}, UserGroups: []string{group.ID},
	})
	if err != nil {
		return err
	}
	fmt.Printf("   group %s, user %s\n", group.ID, user.ID)
	if hookURL != "" {
		hook, err := client.Webhooks.Create(ctx, edapp.WebhookCreateParams{EventName: edapp.EventLessonCompleted, WebHookURL: hookURL})
		if err != nil {
			return err
		}
		fmt.Printf("   webhook %s -> %s\n", hook.ID, hook.WebHookURL)
	}
	fmt.Println("\nA learner completes lessons in the app; see examples/webhook-receiver for receiving the events.")
	return nil
}

// startReceiver serves the app on loopback: webhook.NewHandler at
// /edapp/events, passing each event it accepts to the returned channel.
func startReceiver(secret string) (events <-chan edapp.Event, hookURL string, stop func(), err error) {
	ch := make(chan edapp.Event, 16)
	h, err := webhook.NewHandler(func(ctx context.Context, ev edapp.Event) error {
		select {
		case ch <- ev:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}, webhook.WithSecretHeader("X-Webhook-Secret", secret))
	if err != nil {
		return nil, "", nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/edapp/events", h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", nil, err
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln)
	base := "http://" + ln.Addr().String()
	return ch, base + "/edapp/events", func() { hs.Close() }, nil
}

func printCourses(courses []v1.Course) {
	for _, c := range courses {
		fmt.Printf("   course %q: unlocked=%t opened=%t completed=%t%s\n", c.Title, c.Unlocked, c.Opened, c.Completed, dated(c.CompletedDate))
		for _, l := range c.Lessons {
			fmt.Printf("     lesson %q: opened=%t completed=%t%s\n", l.Title, l.Opened, l.Completed, dated(l.CompletedDate))
		}
	}
}

func dated(t edapp.Time) string {
	if t.IsZero() {
		return ""
	}
	return " on " + t.Format("2006-01-02 15:04:05 MST")
}

func step(n int, title string) { fmt.Printf("%d. %s\n", n, title) }

// usage prints how to run the example.
func usage() {
	fmt.Fprintf(os.Stderr, "usage: quickstart [-write] [-webhook-url URL]\n\nWithout EDAPP_API_TOKEN it runs against a built-in fake service.\n\n")
	flag.PrintDefaults()
}
