package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// runDeadlineError is a run that --deadline ended: the kinds still running
// ended there, their progress kept, and the next run resumes from it.
type runDeadlineError struct{ after time.Duration }

func (e *runDeadlineError) Error() string {
	return fmt.Sprintf("the run's deadline (--deadline %s) passed: the kinds still running stopped, what they wrote is kept, and the next run resumes from there", e.after)
}

// withRunDeadline bounds ctx by --deadline (0: no bound).
func withRunDeadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, &runDeadlineError{after: d})
}

// runDeadlineFailure says that --deadline ended the run, when it did, with
// err's text after it; err otherwise.
func runDeadlineFailure(ctx context.Context, err error) error {
	var rd *runDeadlineError
	if err == nil || !errors.As(context.Cause(ctx), &rd) {
		return err
	}
	return fmt.Errorf("%w (%w)", rd, err)
}
