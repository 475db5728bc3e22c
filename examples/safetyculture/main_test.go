package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRunAgainstFake(t *testing.T) {
	t.Setenv("SAFETYCULTURE_API_TOKEN", "")
	var out bytes.Buffer
	if err := run(context.Background(), &out, "", ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{" courses\n", "course progress: ", " completed, ", "delivery verified: TRIGGER_EVENT_TRAINING_COURSE_COMPLETED on TRAINING_COURSE "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
