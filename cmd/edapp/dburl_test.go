package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/export/dbschema"
)

func TestParseDBURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw      string
		dialect  dbschema.Dialect
		driver   string
		redacted string
		dsn      string // prefix
	}{
		{"sqlite:edapp.db", dbschema.SQLite, "sqlite", "sqlite:edapp.db", "edapp.db?_pragma=busy_timeout"},
		{"sqlite:/var/lib/edapp/edapp.db", dbschema.SQLite, "sqlite", "sqlite:/var/lib/edapp/edapp.db", "/var/lib/edapp/edapp.db?"},
		{"sqlite:///abs/e.db", dbschema.SQLite, "sqlite", "sqlite:/abs/e.db", "/abs/e.db?"},
		{"postgres://u:s3cret@db.example:5432/edapp?sslmode=disable", dbschema.Postgres, "pgx", "postgres://u:xxxxx@db.example:5432/edapp?sslmode=disable", "postgres://u:s3cret@"},
		{"postgresql://u@db.example/edapp", dbschema.Postgres, "pgx", "postgresql://u@db.example/edapp", "postgresql://u@"},
		{"postgres://db.example/edapp?user=u&password=s3cret", dbschema.Postgres, "pgx", "postgres://db.example/edapp?password=xxxxx&user=u", "postgres://db.example/"},
	}
	for _, tt := range tests {
		got, err := parseDBURL(tt.raw)
		if err != nil {
			t.Errorf("parseDBURL(%q): %v", tt.raw, err)
			continue
		}
		if got.Dialect != tt.dialect || got.Driver != tt.driver || got.Redacted != tt.redacted || !strings.HasPrefix(got.DSN, tt.dsn) {
			t.Errorf("parseDBURL(%q) = %v %q %q %q", tt.raw, got.Dialect, got.Driver, got.Redacted, got.DSN)
		}
		for _, s := range []string{fmt.Sprint(got), fmt.Sprintf("%+v", got), fmt.Sprintf("%#v", got)} {
			if strings.Contains(s, "s3cret") {
				t.Errorf("parseDBURL(%q) prints the password: %s", tt.raw, s)
			}
		}
	}
}

func TestParseDBURLSQLitePragmas(t *testing.T) {
	t.Parallel()
	got, err := parseDBURL("sqlite:e.db")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"_journal_mode=WAL", "_pragma=busy_timeout(", "_pragma=synchronous(FULL)", "_pragma=page_size(16384)", "_pragma=cache_size(-8192)"} {
		if !strings.Contains(got.DSN, p) {
			t.Errorf("DSN %q lacks %s", got.DSN, p)
		}
	}
}

func TestParseDBURLErrors(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"", "edapp.db", "mysql://u:s3cret@h/db", "sqlite:", "sqlite:a?b.db",
		"postgres://u:s3cret@h:port/db", "postgres://u:s3cret@%zz/db", "postgres:opaque-s3cret", "postgres:///db",
	} {
		_, err := parseDBURL(raw)
		if err == nil {
			t.Errorf("parseDBURL(%q): no error", raw)
			continue
		}
		if !errors.Is(err, errBadDBURL) {
			t.Errorf("parseDBURL(%q): %v, not errBadDBURL", raw, err)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("parseDBURL(%q): the error holds the password: %v", raw, err)
		}
	}
}

// TestDBTargetRedact: a driver's message that quotes the password shows
// none of it, as the URL's redacted form shows none.
func TestDBTargetRedact(t *testing.T) {
	t.Parallel()
	target, err := parseDBURL("postgres://edapp:s3cret@db.internal:5432/edapp?sslmode=require")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(target.Dialect, " ", target.Driver, " ", target), "postgres pgx postgres://edapp:xxxxx@db.internal:5432/edapp?sslmode=require"; got != want {
		t.Errorf("target = %q, want %q", got, want)
	}
	if got, want := target.Redact("connect to edapp:s3cret@db.internal failed"), "connect to edapp:[REDACTED]@db.internal failed"; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}
