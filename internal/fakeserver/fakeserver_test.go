package fakeserver

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
)

type own struct{ n int }

func TestApply(t *testing.T) {
	t.Parallel()
	cfg, err := Apply("fake", own{n: 1}, []Option[own]{nil, WithLatency[own](time.Second)})
	if err != nil || cfg.Own.n != 1 || cfg.Latency != time.Second || cfg.Token == "" || cfg.Logger == nil || cfg.Clock == nil {
		t.Fatalf("defaults and options: %+v, %v", cfg, err)
	}
	_, err = Apply("fake", own{}, []Option[own]{WithClock[own](nil), WithToken[own](" ")})
	if !errors.Is(err, edapp.ErrInvalidInput) || !strings.HasPrefix(err.Error(), "fake: ") || !strings.Contains(err.Error(), "WithClock") {
		t.Fatalf("the first bad value, named: %v", err)
	}
}

func TestCoreTakeFault(t *testing.T) {
	t.Parallel()
	cfg, _ := Apply("fake", own{}, nil)
	c := NewCore(cfg, strings.ToLower)
	c.FailNext(2, 0, 0)
	c.FailNextOn("get /A", 1, 503, 0)
	if f, ok := c.takeFault("POST", "/a"); !ok || f.Status != 500 {
		t.Errorf("another method takes the unscoped failure, status 0 read as 500: %+v %v", f, ok)
	}
	if f, ok := c.takeFault("GET", "/a"); !ok || f.Status != 503 {
		t.Errorf("the scoped failure first: %+v %v", f, ok)
	}
	c.FailNext(0, 500, 0)
	if _, ok := c.takeFault("GET", "/a"); ok {
		t.Error("FailNext(0) cancels")
	}
}

func TestWatchReportsPanicsAtTheEnd(t *testing.T) {
	t.Parallel()
	cfg, _ := Apply("fake", own{}, nil)
	c := NewCore(cfg, strings.ToLower)
	rec := &recorder{}
	closed := false
	Watch(rec, c, func() { closed = true })
	c.recovered(httptest.NewRequest(http.MethodGet, "/x", nil), "boom")
	if len(rec.errors) != 0 || len(rec.cleanups) != 1 {
		t.Fatalf("reported early: %q", rec.errors)
	}
	rec.cleanups[0]()
	if !closed || len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "GET /x: boom") {
		t.Errorf("closed %v, reported %q", closed, rec.errors)
	}
}

type recorder struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (r *recorder) Helper()          {}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
