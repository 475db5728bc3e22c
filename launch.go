package edapp

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/edapp-go/edapp/internal/redact"
)

// LaunchLink is a lesson launch link, the launchURI of a v1 course lesson:
// <launch page>/launch-lesson?token=<LAUNCH_TOKEN>&lesson=<lesson_id>. The
// token signs the learner in when the lesson opens and expires 20 minutes
// after it is issued, so fetch a fresh link just before the learner opens
// the lesson. String, GoString and LogValue hide the token; URL holds it,
// for handing to the learner.
type LaunchLink struct {
	URL      string    // the whole link, token included: give it only to the learner
	Token    string    // the launch token
	LessonID string    // the lesson parameter
	IssuedAt time.Time // when the link was fetched from the service
}

// ParseLaunchLink reads a launchURI. It must be an absolute http(s) URL
// with a token and a lesson parameter.
// issuedAt is when the link was fetched; the token dies 20 minutes later.
// Errors never repeat the token.
func ParseLaunchLink(uri string, issuedAt time.Time) (*LaunchLink, error) {
	u, err := url.Parse(strings.TrimSpace(uri))
	if err != nil {
		return nil, fmt.Errorf("%w: launch link is not a URL", ErrInvalidInput)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: launch link must be an absolute http or https URL", ErrInvalidInput)
	}
	q := u.Query()
	token, lesson := q.Get("token"), q.Get("lesson")
	if token == "" {
		return nil, fmt.Errorf("%w: launch link has no token parameter", ErrInvalidInput)
	}
	if lesson == "" {
		return nil, fmt.Errorf("%w: launch link has no lesson parameter", ErrInvalidInput)
	}
	return &LaunchLink{URL: u.String(), Token: token, LessonID: lesson, IssuedAt: issuedAt}, nil
}

// ExpiresAt is IssuedAt plus LaunchTokenLifetime (20 minutes).
func (l *LaunchLink) ExpiresAt() time.Time { return l.IssuedAt.Add(LaunchTokenLifetime) }

// Expired reports whether the token is dead at now.
func (l *LaunchLink) Expired(now time.Time) bool { return !now.Before(l.ExpiresAt()) }

// String is the link with its token replaced by REDACTED.
func (l LaunchLink) String() string { return redactLaunchURL(l.URL) }

// GoString keeps %#v from printing the token.
func (l LaunchLink) GoString() string {
	return fmt.Sprintf("edapp.LaunchLink{URL: %q, LessonID: %q, IssuedAt: %s}", redactLaunchURL(l.URL), l.LessonID, l.IssuedAt.Format(time.RFC3339))
}

// LogValue keeps slog from printing the token.
func (l LaunchLink) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("url", redactLaunchURL(l.URL)),
		slog.String("lesson", l.LessonID),
		slog.Time("expiresAt", l.ExpiresAt()),
	)
}

func redactLaunchURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return redact.LaunchTokens(s)
	}
	q := u.Query()
	if q.Has("token") {
		q.Set("token", "REDACTED")
		u.RawQuery = q.Encode()
	}
	return u.String()
}
