package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

func TestReceiverAgainstFake(t *testing.T) {
	t.Setenv("EDAPP_API_TOKEN", "")
	if err := run("127.0.0.1:0", "test-secret", false, ""); err != nil {
		t.Fatal(err)
	}
}

func TestReceiverRefusesAnEmptySecret(t *testing.T) {
	t.Setenv("EDAPP_API_TOKEN", "")
	err := run("127.0.0.1:0", "", false, "")
	if err == nil || !strings.Contains(err.Error(), "secret") {
		t.Fatalf("err = %v", err)
	}
}

func TestSecretOrNew(t *testing.T) {
	var out bytes.Buffer
	if s, err := secretOrNew("given", &out); err != nil || s != "given" || out.Len() != 0 {
		t.Fatalf("got %q, %v, printed %q", s, err, out.String())
	}
	a, err := secretOrNew("", &out)
	if err != nil || len(a) != 64 {
		t.Fatalf("got %q, %v", a, err)
	}
	if !strings.Contains(out.String(), secretHeader+": "+a) {
		t.Errorf("secret not printed: %q", out.String())
	}
	if b, _ := secretOrNew("", &out); b == a {
		t.Error("the same secret twice")
	}
}

func TestServerTimeouts(t *testing.T) {
	srv := newServer(http.NotFoundHandler())
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 {
		t.Errorf("unbounded server: %+v", srv)
	}
}
