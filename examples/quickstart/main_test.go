package main

import (
	"context"
	"testing"
	"time"

	"github.com/edapp-go/edapp/edapptest"
)

func TestQuickstartAgainstFake(t *testing.T) {
	srv := edapptest.New(t)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := fake(ctx, srv.Client(), srv); err != nil {
		t.Fatal(err)
	}
}
