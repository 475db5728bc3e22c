package edapp

import (
	"fmt"
	"io"
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
// the lesson.
//
// The link and the token are Secrets: printing or encoding a LaunchLink, in
// any form and however deeply nested, never shows the token (String shows
// the link with the token replaced by REDACTED). URL.Value() is the link to
// hand to the learner.
type LaunchLink struct {
	URL      Secret    // the whole link, token included: give URL.Value() only to the learner
	Token    Secret    // the launch token
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
	return &LaunchLink{URL: NewSecret(u.String()), Token: NewSecret(token), LessonID: lesson, IssuedAt: issuedAt}, nil
}

// ExpiresAt is IssuedAt plus [LaunchTokenLifetime] (20 minutes).
func (l *LaunchLink) ExpiresAt() time.Time { return l.IssuedAt.Add(LaunchTokenLifetime) }

// Expired reports whether the token is dead at now.
func (l *LaunchLink) Expired(now time.Time) bool { return !now.Before(l.ExpiresAt()) }

// String is the link with its token replaced by REDACTED.
func (l LaunchLink) String() string { return redactLaunchURL(l.URL.Value()) }

// GoString keeps %#v from printing the token.
func (l LaunchLink) GoString() string {
	return fmt.Sprintf("edapp.LaunchLink{URL: %q, LessonID: %q, IssuedAt: %s}", l.String(), l.LessonID, l.IssuedAt.Format(time.RFC3339))
}

// Format prints the link with its token hidden, whatever the verb: %#v as
// GoString, any other verb as String.
func (l LaunchLink) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, l.GoString())
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), l.String())
}

// LogValue keeps slog from printing the token.
func (l LaunchLink) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("url", l.String()),
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

// redacted is what a Secret prints and encodes to.
const redacted = "[REDACTED]"

// Secret is a string that never shows itself: a launch token, or a link
// that holds one. Every fmt verb, log/slog, encoding/json, encoding/xml and
// any other user of encoding.TextMarshaler see [REDACTED]; Value returns
// the string. The string sits behind a pointer, so that fmt printing a
// Secret held in an unexported field, where it cannot call these methods,
// shows only an address. The zero Secret holds the empty string.
type Secret struct {
	p *string
}

// NewSecret wraps s.
func NewSecret(s string) Secret { return Secret{p: &s} }

// Value returns the secret string itself.
func (s Secret) Value() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}

// IsZero reports whether s holds the empty string (and lets omitzero
// leave it out).
func (s Secret) IsZero() bool { return s.Value() == "" }

// String returns [REDACTED]; use Value for the secret.
func (s Secret) String() string { return redacted }

// GoString keeps %#v from printing the secret.
func (s Secret) GoString() string { return "edapp.Secret{" + redacted + "}" }

// Format prints [REDACTED] for every verb (%#v as GoString).
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, s.GoString())
		return
	}
	_, _ = io.WriteString(f, redacted)
}

// LogValue keeps log/slog from printing the secret.
func (s Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON encodes the secret as "[REDACTED]".
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText encodes the secret as [REDACTED], for encoding/xml and other
// text encoders.
func (s Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }
