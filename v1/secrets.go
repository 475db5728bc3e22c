package v1

import (
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/redact"
)

// Printing and logging a [Course] or a [Lesson] never shows a launch token:
// String, GoString, Format and LogValue replace it with REDACTED, while
// LaunchURI itself, and json.Marshal, keep the whole link for handing to
// the learner. slog's JSON handler writes a slice ([]Course, []Lesson) with
// json.Marshal, link included: log the records one at a time.

// Format prints the lesson with its launch token hidden, whatever the
// verb: %#v as GoString, any other verb as String.
func (l Lesson) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, l.GoString())
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), l.String())
}

// GoString is the lesson in Go syntax (%#v), its launch token hidden.
func (l Lesson) GoString() string {
	type lessonFields Lesson // the fields without the methods
	p := lessonFields(l)
	p.LaunchURI = redact.LaunchTokens(p.LaunchURI)
	return strings.Replace(fmt.Sprintf("%#v", p), "lessonFields{", "Lesson{", 1)
}

// LogValue is the lesson for log/slog, its launch token hidden.
func (l Lesson) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("id", l.ID),
		slog.String("title", l.Title),
		slog.String("launchURI", redact.LaunchTokens(l.LaunchURI)),
		slog.Bool("unlocked", l.Unlocked),
		slog.Bool("completed", l.Completed),
		slog.Bool("opened", l.Opened),
	)
}

// String describes the course and its lessons, launch tokens hidden.
func (c Course) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "{ID:%s Title:%q Unlocked:%t Completed:%t Opened:%t Lessons:[", c.ID, c.Title, c.Unlocked, c.Completed, c.Opened)
	for i, l := range c.Lessons {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(l.String())
	}
	b.WriteString("]}")
	return b.String()
}

// GoString is the course in Go syntax (%#v), launch tokens hidden.
func (c Course) GoString() string {
	type courseFields Course // the fields without the methods; lessons keep theirs
	return strings.Replace(fmt.Sprintf("%#v", courseFields(c)), "courseFields{", "Course{", 1)
}

// LogValue is the course for log/slog, launch tokens hidden: each lesson
// logs as [Lesson.LogValue], under its index.
func (c Course) LogValue() slog.Value {
	lessons := make([]slog.Attr, len(c.Lessons))
	for i, l := range c.Lessons {
		lessons[i] = slog.Any(strconv.Itoa(i), l)
	}
	return slog.GroupValue(
		slog.String("id", c.ID),
		slog.String("title", c.Title),
		slog.Bool("unlocked", c.Unlocked),
		slog.Bool("completed", c.Completed),
		slog.Bool("opened", c.Opened),
		slog.Attr{Key: "lessons", Value: slog.GroupValue(lessons...)},
	)
}

// UserToken is a user's token, as [UsersService.Token] answers. It is a
// secret, like a launch token: every fmt verb, log/slog, encoding/json and
// encoding/xml (through MarshalText) show [REDACTED], and only Value
// returns the token itself. It keeps the token as an [edapp.Secret], behind a
// pointer, so that fmt printing a UserToken held in an unexported field,
// where it cannot call these methods, shows only an address.
type UserToken struct {
	secret edapp.Secret
}

// Value returns the token.
func (t UserToken) Value() string { return t.secret.Value() }

// IsZero reports whether t holds no token.
func (t UserToken) IsZero() bool { return t.secret.IsZero() }

// String returns [REDACTED]; use Value for the token.
func (t UserToken) String() string { return t.secret.String() }

// GoString keeps %#v from printing the token.
func (t UserToken) GoString() string { return "v1.UserToken{[REDACTED]}" }

// Format prints [REDACTED] for every verb.
func (t UserToken) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, t.GoString())
		return
	}
	t.secret.Format(f, verb)
}

// LogValue keeps log/slog from printing the token.
func (t UserToken) LogValue() slog.Value { return t.secret.LogValue() }

// MarshalJSON encodes the token as "[REDACTED]".
func (t UserToken) MarshalJSON() ([]byte, error) { return t.secret.MarshalJSON() }

// MarshalText encodes the token as [REDACTED], for encoding/xml and other
// text encoders.
func (t UserToken) MarshalText() ([]byte, error) { return t.secret.MarshalText() }
