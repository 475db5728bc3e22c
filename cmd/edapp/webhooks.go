package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/webhook"
	"github.com/spf13/cobra"
)

func newCmdWebhooks(f *factory) *cobra.Command {
	cmd := groupCommand("webhooks", "List, create and delete webhooks, and send test deliveries",
		`  edapp webhooks list -o table
  edapp webhooks create --event LessonCompletedEvent --url https://example.com/edapp/events --header X-Webhook-Secret=s3cret
  edapp webhooks delete 42
  edapp webhooks send-test --url http://localhost:8080/edapp/events --event LessonCompletedEvent`)
	cmd.AddCommand(newCmdWebhooksList(f, nil), newCmdWebhooksCreate(f, nil), newCmdWebhooksDelete(f, nil),
		newCmdWebhooksSendTest(f, nil), newCmdWebhooksServe(f, nil))
	return cmd
}

func eventNameCompletion(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, n := range edapp.EventNames() {
		out = append(out, string(n))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// checkEventName refuses a name that is not one of the ten events.
func checkEventName(name string) (edapp.EventName, error) {
	if name == "" {
		return "", usagef("--event is required")
	}
	n := edapp.EventName(name)
	if !slices.Contains(edapp.EventNames(), n) {
		var names []string
		for _, e := range edapp.EventNames() {
			names = append(names, string(e))
		}
		return "", usagef("unknown event %q: want one of %s", name, strings.Join(names, ", "))
	}
	return n, nil
}

// hideValues keeps the header values out of err's text: the service may
// echo a request back in an error. It still matches what err matches.
func hideValues(err error, headers map[string]string) error {
	msg := err.Error()
	for _, v := range headers {
		msg = edapp.Redact(msg, v)
	}
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// parseHeaders reads K=V pairs.
func parseHeaders(pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			// Not quoted: what was given may be the secret value alone.
			return nil, usagef("invalid --header: want NAME=VALUE")
		}
		out[k] = v
	}
	return out, nil
}

// masked is what a webhook's header value reads as without --show-secrets.
const masked = "[REDACTED]"

// webhookView is how a command prints webhooks: header values, which
// carry the shared secret a receiver checks, are masked unless showSecrets.
type webhookView struct {
	out         outputFlag
	showSecrets bool
}

func (v *webhookView) register(cmd *cobra.Command) {
	v.out.register(cmd)
	cmd.Flags().BoolVar(&v.showSecrets, "show-secrets", false, "print header values (they hold the receiver's shared secret) instead of masking them")
}

// maskHeaders returns hooks with every header value replaced by masked.
func maskHeaders(hooks []edapp.Webhook) []edapp.Webhook {
	out := make([]edapp.Webhook, len(hooks))
	for i, h := range hooks {
		if h.Headers != nil {
			m := make(edapp.WebhookHeaders, len(h.Headers))
			for k := range h.Headers {
				m[k] = masked
			}
			h.Headers = m
		}
		out[i] = h
	}
	return out
}

// shownWebhook is a webhook as --show-secrets -o json prints it: its
// header values in full, which edapp.WebhookHeaders' own encoding masks.
type shownWebhook struct {
	edapp.Webhook
	Headers map[string]string `json:"headers"`
}

// showHeaders returns hooks in the form that encodes their header values.
func showHeaders(hooks []edapp.Webhook) []shownWebhook {
	out := make([]shownWebhook, len(hooks))
	for i, h := range hooks {
		out[i] = shownWebhook{Webhook: h, Headers: h.Headers}
	}
	return out
}

// print writes hooks to w as a table or as JSON, masked unless showSecrets.
func (v *webhookView) print(w io.Writer, hooks []edapp.Webhook) error {
	format, err := v.out.resolve(w)
	if err != nil {
		return err
	}
	if !v.showSecrets {
		hooks = maskHeaders(hooks)
	}
	if format == "json" {
		if v.showSecrets {
			return writeJSON(w, showHeaders(hooks))
		}
		return writeJSON(w, hooks)
	}
	rows := make([][]string, 0, len(hooks))
	for _, h := range hooks {
		var pairs []string
		for _, k := range slices.Sorted(maps.Keys(h.Headers)) {
			pairs = append(pairs, k+"="+h.Headers[k])
		}
		rows = append(rows, []string{h.ID, string(h.EventName), h.WebHookURL, strings.Join(pairs, ",")})
	}
	return writeTable(w, []string{"ID", "EVENT", "URL", "HEADERS"}, rows)
}

// webhooksListOptions are what `edapp webhooks list` builds on, and its
// flags.
type webhooksListOptions struct {
	IO     *ioStreams
	Client func() (*apiClient, error)
	webhookView
}

// newClientOf is the client constructor of a command without the budget
// flags: the default budget, shared through EDAPP_REDIS_URL when set.
func newClientOf(f *factory) func() (*apiClient, error) {
	return func() (*apiClient, error) { return f.Client(defaultBudget()) }
}

// newCmdWebhooksList makes `edapp webhooks list`; runF, when not nil,
// runs instead with what the flags parsed to.
func newCmdWebhooksList(f *factory, runF func(*webhooksListOptions) error) *cobra.Command {
	o := &webhooksListOptions{IO: f.IO, Client: newClientOf(f)}
	cmd := &cobra.Command{
		Use:   "list [--show-secrets] [-o table|json]",
		Short: "List the account's webhooks",
		Long: `list prints the account's webhooks. Header values are masked: they hold the
shared secret a receiver checks. --show-secrets prints them.`,
		Example: "  edapp webhooks list\n  edapp webhooks list -o json | jq -r '.[].id'",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := o.out.resolve(o.IO.Out); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return webhooksListRun(cmd.Context(), o)
		},
	}
	o.register(cmd)
	return cmd
}

// webhooksListRun prints the account's webhooks.
func webhooksListRun(ctx context.Context, o *webhooksListOptions) error {
	c, err := o.Client()
	if err != nil {
		return err
	}
	hooks, err := c.Webhooks.List(ctx)
	if err != nil {
		return whatFailed("listing webhooks", err)
	}
	if hooks == nil {
		hooks = []edapp.Webhook{}
	}
	return o.print(o.IO.Out, hooks)
}

// webhooksCreateOptions are what "webhooks create" builds on, and its
// flags.
type webhooksCreateOptions struct {
	IO     *ioStreams
	Client func() (*apiClient, error)
	view   webhookView
	hook   hookFlags
	// The flags, checked:
	event   edapp.EventName
	headers map[string]string
}

// newCmdWebhooksCreate makes `edapp webhooks create`; runF, when not nil,
// runs instead with what the flags parsed to.
func newCmdWebhooksCreate(f *factory, runF func(*webhooksCreateOptions) error) *cobra.Command {
	o := &webhooksCreateOptions{IO: f.IO, Client: newClientOf(f)}
	cmd := &cobra.Command{
		Use:   "create --event NAME --url URL [--header K=V]...",
		Short: "Link an event to a URL",
		Long: `create links an event to a URL: the service then posts each occurrence of the
event to the URL. Headers given with --header are sent with every delivery,
which is how a receiver authenticates them (no signing scheme is known).
The webhook is printed with its header values masked, unless --show-secrets.`,
		Example: "  edapp webhooks create --event LessonCompletedEvent --url https://example.com/edapp/events --header X-Webhook-Secret=s3cret",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := o.view.out.resolve(o.IO.Out); err != nil {
				return err
			}
			var err error
			if o.event, o.headers, err = o.hook.parse(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return webhooksCreateRun(cmd.Context(), o)
		},
	}
	o.hook.register(cmd, "URL that receives the deliveries", "header NAME=VALUE sent with every delivery (repeatable)")
	o.view.register(cmd)
	return cmd
}

// webhooksCreateRun creates the webhook and prints it.
func webhooksCreateRun(ctx context.Context, o *webhooksCreateOptions) error {
	name, h := o.event, o.headers
	c, err := o.Client()
	if err != nil {
		return err
	}
	created, err := c.Webhooks.Create(ctx, edapp.WebhookCreateParams{EventName: name, WebHookURL: o.hook.url, Headers: h})
	if err != nil {
		return whatFailed("creating the webhook", hideValues(err, h))
	}
	return o.view.print(o.IO.Out, []edapp.Webhook{*created})
}

// hookFlags are the --event, --url and --header flags of create and
// send-test.
type hookFlags struct {
	event, url string
	headers    []string
}

func (f *hookFlags) register(cmd *cobra.Command, urlHelp, headerHelp string) {
	cmd.Flags().StringVar(&f.event, "event", "", "event name, such as LessonCompletedEvent")
	cmd.Flags().StringVar(&f.url, "url", "", urlHelp)
	cmd.Flags().StringArrayVar(&f.headers, "header", nil, headerHelp)
	_ = cmd.RegisterFlagCompletionFunc("event", eventNameCompletion)
}

// parse checks the flags: a known event name, an absolute http(s) URL and
// NAME=VALUE headers.
func (f *hookFlags) parse() (edapp.EventName, map[string]string, error) {
	name, err := checkEventName(f.event)
	if err != nil {
		return "", nil, err
	}
	if err := checkURL(f.url); err != nil {
		return "", nil, err
	}
	h, err := parseHeaders(f.headers)
	return name, h, err
}

func checkURL(raw string) error {
	if raw == "" {
		return usagef("--url is required")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("invalid --url %q: want an absolute http or https URL", raw)
	}
	return nil
}

// webhooksDeleteOptions are what `edapp webhooks delete` builds on, and
// its arguments.
type webhooksDeleteOptions struct {
	IO     *ioStreams
	Client func() (*apiClient, error)
	ids    []string
}

// newCmdWebhooksDelete makes `edapp webhooks delete`; runF, when not nil,
// runs instead with the ids.
func newCmdWebhooksDelete(f *factory, runF func(*webhooksDeleteOptions) error) *cobra.Command {
	o := &webhooksDeleteOptions{IO: f.IO, Client: newClientOf(f)}
	return &cobra.Command{
		Use:     "delete ID...",
		Short:   "Delete webhooks by id",
		Example: "  edapp webhooks delete 42\n  edapp webhooks list -o json | jq -r '.[].id' | xargs edapp webhooks delete",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("delete needs at least one webhook id")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, ids []string) error {
			o.ids = ids
			if runF != nil {
				return runF(o)
			}
			return webhooksDeleteRun(cmd.Context(), o)
		},
	}
}

// webhooksDeleteRun deletes the webhooks, in order, up to the first that
// fails.
func webhooksDeleteRun(ctx context.Context, o *webhooksDeleteOptions) error {
	c, err := o.Client()
	if err != nil {
		return err
	}
	for _, id := range o.ids {
		if err := c.Webhooks.Delete(ctx, id); err != nil {
			return whatFailed("deleting webhook "+id, err)
		}
		fmt.Fprintf(o.IO.Out, "deleted %s\n", id)
	}
	return nil
}

// sendTestOptions are what `edapp webhooks send-test` builds on, and
// what its flags parsed to.
type sendTestOptions struct {
	IO *ioStreams
	// Now is the time the sample event carries.
	Now     func() time.Time
	hook    hookFlags
	timeout time.Duration
	// The flags, checked:
	event   edapp.EventName
	headers map[string]string
}

// newCmdWebhooksSendTest makes `edapp webhooks send-test`; runF, when not
// nil, runs instead with what the flags parsed to.
func newCmdWebhooksSendTest(f *factory, runF func(*sendTestOptions) error) *cobra.Command {
	o := &sendTestOptions{IO: f.IO, Now: time.Now}
	cmd := &cobra.Command{
		Use:   "send-test --url URL --event NAME [--header K=V]...",
		Short: "Post a realistic test delivery to a receiver under development",
		Long: `send-test posts one delivery of the event to URL, as the service would: a
POST of the event's JSON payload, with sample values and the current time,
plus the headers given with --header. It prints the status the receiver
answered, and fails (exit 1) unless that status is 2xx. It does not call the
EdApp API and needs no token.`,
		Example: "  edapp webhooks send-test --url http://localhost:8080/edapp/events --event LessonCompletedEvent --header X-Webhook-Secret=s3cret",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if o.event, o.headers, err = o.hook.parse(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return sendTestRun(cmd.Context(), o)
		},
	}
	o.hook.register(cmd, "URL of the receiver", "header NAME=VALUE to send (repeatable)")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 10*time.Second, "how long to wait for the receiver's answer")
	return cmd
}

// sendTestRun posts one sample delivery of the event to the receiver and
// prints the status it answered.
func sendTestRun(ctx context.Context, o *sendTestOptions) error {
	hookURL, ev := o.hook.url, sampleEvent(o.event, o.Now())
	body := webhook.NewTestDelivery(ev)
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hookURL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "edapp-cli/"+edapp.Version)
	for k, v := range o.headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return whatFailed("send-test", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	fmt.Fprintf(o.IO.Out, "%s %s: %s\n", ev.Name(), hookURL, resp.Status)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("receiver answered %s", resp.Status)
	}
	return nil
}

// sampleEvent builds a realistic event of the named kind.
func sampleEvent(name edapp.EventName, now time.Time) edapp.Event {
	ts := edapp.Time{Time: now.UTC().Truncate(time.Millisecond)}
	const (
		userID, userExt, userName, email = "5f8a1c2e9b3d4a0012345678", "EMP-1001", "alice", "alice@example.com"
		first, last                      = "Alice", "Nguyen"
		courseID, courseTitle            = "5f8a1c2e9b3d4a00c0a5e001", "Manual Handling"
		lessonID, lessonTitle            = "5f8a1c2e9b3d4a00le550001", "Lifting Safely"
		quizID, quizTitle, quizSession   = "5f8a1c2e9b3d4a00qu120001", "Manual Handling Refresher", "1"
	)
	quizLink := "https://web.edapp.com/rapid-refresh/" + quizID
	courseLink := "https://web.edapp.com/course/" + courseID
	switch name {
	case edapp.EventCourseCompleted:
		return &edapp.CourseCompletedEvent{UserID: userID, UserName: userName, Email: email, FirstName: first, LastName: last, CourseID: courseID, CourseTitle: courseTitle, Timestamp: ts}
	case edapp.EventLessonCompleted:
		return &edapp.LessonCompletedEvent{UserID: userID, UserName: userName, Email: email, FirstName: first, LastName: last, CourseID: courseID, CourseTitle: courseTitle, LessonID: lessonID, LessonTitle: lessonTitle, Timestamp: ts, Score: 90}
	case edapp.EventLessonPublished:
		return &edapp.LessonPublishedEvent{UserID: userID, UserName: userName, Email: email, CourseID: courseID, CourseTitle: courseTitle, LessonID: lessonID, LessonTitle: lessonTitle, Timestamp: ts}
	case edapp.EventLessonUnpublished:
		return &edapp.LessonUnpublishedEvent{UserID: userID, UserName: userName, Email: email, CourseID: courseID, CourseTitle: courseTitle, LessonID: lessonID, LessonTitle: lessonTitle, Timestamp: ts}
	case edapp.EventCoursePublished:
		return &edapp.CoursePublishedEvent{UserID: userID, UserName: userName, Email: email, CourseID: courseID, CourseTitle: courseTitle, Timestamp: ts}
	case edapp.EventCourseUnPublished:
		return &edapp.CourseUnPublishedEvent{UserID: userID, UserName: userName, Email: email, CourseID: courseID, CourseTitle: courseTitle, Timestamp: ts}
	case edapp.EventRapidRefreshSessionStartedNotification:
		return &edapp.RapidRefreshSessionStartedNotificationEvent{UserID: userID, UserExternalID: userExt, UserName: userName, Email: email, QuizID: quizID, QuizTitle: quizTitle, QuizSession: quizSession, QuizLink: quizLink, Timestamp: ts}
	case edapp.EventRapidRefreshRetrySessionStartedNotification:
		return &edapp.RapidRefreshRetrySessionStartedNotificationEvent{UserID: userID, UserExternalID: userExt, UserName: userName, Email: email, QuizID: quizID, QuizTitle: quizTitle, QuizSession: quizSession, QuizLink: quizLink, Timestamp: ts}
	case edapp.EventRapidRefreshSessionReminderNotification:
		return &edapp.RapidRefreshSessionReminderNotificationEvent{UserID: userID, UserExternalID: userExt, UserName: userName, Email: email, QuizID: quizID, QuizTitle: quizTitle, QuizSession: quizSession, QuizLink: quizLink, Timestamp: ts}
	case edapp.EventCourseReminderWebHook:
		return &edapp.CourseReminderWebHookEvent{UserID: userID, UserExternalID: userExt, UserName: userName, Email: email, CourseID: courseID, CourseTitle: courseTitle, CourseLink: courseLink, DueDate: edapp.Time{Time: ts.AddDate(0, 0, 7)}, Timestamp: ts}
	}
	return &edapp.UnknownEvent{EventName: name}
}
