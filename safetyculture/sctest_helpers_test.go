package safetyculture

import (
	"context"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/edapptest/fakedata"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// migratedFake is an sctest fake seeded as the migrated copy of a small
// edapptest account, and the Migration that names its ids.
func migratedFake(t testing.TB, opts ...sctest.Option) (*sctest.Server, *fakedata.Migration) {
	t.Helper()
	moved := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	ed := edapptest.New(t, edapptest.WithClock(func() time.Time { return moved }))
	if err := fakedata.SeedAccount(ed, fakedata.AccountSpec{Users: 40, Groups: 4, Collections: 2, Courses: 4, Attempts: 400}); err != nil {
		t.Fatal(err)
	}
	fake := sctest.New(t, opts...)
	m, err := fakedata.SeedMigration(fake, ed)
	if err != nil {
		t.Fatal(err)
	}
	return fake, m
}

// clientOf is a client of fake with short retries.
func clientOf(t testing.TB, fake *sctest.Server, opts ...edapp.Option) *Client {
	t.Helper()
	opts = append([]edapp.Option{edapp.WithBaseURL(fake.URL), edapp.WithRetry(fastRetry)}, opts...)
	sc, err := NewClient(fake.Token, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// mustCollect drains an iterator, failing the test on its first error.
func mustCollect[T any](t *testing.T, seq func(func(T, error) bool)) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
