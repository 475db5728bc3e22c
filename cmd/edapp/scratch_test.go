package main

import (
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
)

func TestScratch(t *testing.T) {
	srv := edapptest.NewServer()
	defer srv.Close()
	srv.SeedDemo()
	srv.FailNext(1, 429, 2*time.Second)
	r := runEnv(t, fakeEnv(srv), "export", "--out", t.TempDir(), "--kinds", "users,groups")
	t.Log(r.stdout, r.stderr)
}
