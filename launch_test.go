package edapp

import (
	"bytes"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sampleLaunch = "https://web.edapp.com/launch-lesson?token=3f1c8a6e-launch-secret&lesson=lesson-42"

func TestParseLaunchLink(t *testing.T) {
	t.Parallel()
	issued := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l, err := ParseLaunchLink(sampleLaunch, issued)
	require.NoError(t, err)
	assert.Equal(t, "3f1c8a6e-launch-secret", l.Token.Value())
	assert.Equal(t, "lesson-42", l.LessonID)
	assert.Equal(t, sampleLaunch, l.URL.Value())
	assert.Equal(t, issued.Add(20*time.Minute), l.ExpiresAt())
	assert.False(t, l.Expired(issued.Add(19*time.Minute+59*time.Second)))
	assert.True(t, l.Expired(issued.Add(20*time.Minute)))
	assert.True(t, l.Expired(issued.Add(time.Hour)))
}

func TestParseLaunchLinkErrors(t *testing.T) {
	t.Parallel()
	for uri, want := range map[string]string{
		"https://web.edapp.com/launch-lesson?lesson=1":              "no token",
		"https://web.edapp.com/launch-lesson?token=secret-tok":      "no lesson",
		"/launch-lesson?token=secret-tok&lesson=1":                  "absolute",
		"javascript:alert(1)?token=secret-tok&lesson=1":             "absolute",
		"https://web.edapp.com/launch-lesson?token=&lesson=1":       "no token",
		"%zz://web.edapp.com/launch-lesson?token=secret-tok&lesson": "not a URL",
	} {
		_, err := ParseLaunchLink(uri, time.Now())
		require.Error(t, err, uri)
		assert.ErrorIs(t, err, ErrInvalidInput)
		assert.Contains(t, err.Error(), want, uri)
		assert.NotContains(t, err.Error(), "secret-tok", "errors never repeat the token")
	}
}

func TestLaunchLinkRedaction(t *testing.T) {
	t.Parallel()
	l, err := ParseLaunchLink(sampleLaunch, time.Now())
	require.NoError(t, err)
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("link", "link", l, "value", *l)
	for _, s := range []string{l.String(), fmt.Sprint(l), fmt.Sprintf("%v %+v %s", *l, l, l), fmt.Sprintf("%#v", *l), logs.String()} {
		assert.NotContains(t, s, "launch-secret", s)
		assert.Contains(t, s, "lesson-42")
	}
	assert.Equal(t, "https://web.edapp.com/launch-lesson?lesson=lesson-42&token=REDACTED", l.String())
}
