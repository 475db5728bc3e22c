package dbschema

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		raw      string
		dialect  Dialect
		driver   string
		redacted string
		dsn      string // prefix
	}{
		{"sqlite:edapp.db", SQLite, "sqlite", "sqlite:edapp.db", "edapp.db?_pragma=busy_timeout"},
		{"sqlite:/var/lib/edapp/edapp.db", SQLite, "sqlite", "sqlite:/var/lib/edapp/edapp.db", "/var/lib/edapp/edapp.db?"},
		{"sqlite:///abs/e.db", SQLite, "sqlite", "sqlite:/abs/e.db", "/abs/e.db?"},
		{"postgres://u:s3cret@db.example:5432/edapp?sslmode=disable", Postgres, "pgx", "postgres://u:xxxxx@db.example:5432/edapp?sslmode=disable", "postgres://u:s3cret@"},
		{"postgresql://u@db.example/edapp", Postgres, "pgx", "postgresql://u@db.example/edapp", "postgresql://u@"},
		{"postgres://db.example/edapp?user=u&password=s3cret", Postgres, "pgx", "postgres://db.example/edapp?password=xxxxx&user=u", "postgres://db.example/"},
	}
	for _, tt := range tests {
		got, err := ParseURL(tt.raw)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", tt.raw, err)
			continue
		}
		if got.Dialect != tt.dialect || got.Driver != tt.driver || got.Redacted != tt.redacted || !strings.HasPrefix(got.DSN, tt.dsn) {
			t.Errorf("ParseURL(%q) = %v %q %q %q", tt.raw, got.Dialect, got.Driver, got.Redacted, got.DSN)
		}
		for _, s := range []string{fmt.Sprint(got), fmt.Sprintf("%+v", got), fmt.Sprintf("%#v", got)} {
			if strings.Contains(s, "s3cret") {
				t.Errorf("ParseURL(%q) prints the password: %s", tt.raw, s)
			}
		}
	}
}

func TestParseURLSQLitePragmas(t *testing.T) {
	got, err := ParseURL("sqlite:e.db")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"_journal_mode=WAL", "_pragma=busy_timeout(", "_pragma=synchronous(FULL)", "_pragma=page_size(16384)", "_pragma=cache_size(-8192)"} {
		if !strings.Contains(got.DSN, p) {
			t.Errorf("DSN %q lacks %s", got.DSN, p)
		}
	}
}

func TestParseURLErrors(t *testing.T) {
	for _, raw := range []string{
		"", "edapp.db", "mysql://u:s3cret@h/db", "sqlite:", "sqlite:a?b.db",
		"postgres://u:s3cret@h:port/db", "postgres://u:s3cret@%zz/db", "postgres:opaque-s3cret", "postgres:///db",
	} {
		_, err := ParseURL(raw)
		if err == nil {
			t.Errorf("ParseURL(%q): no error", raw)
			continue
		}
		if !errors.Is(err, ErrBadURL) {
			t.Errorf("ParseURL(%q): %v, not ErrBadURL", raw, err)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("ParseURL(%q): the error holds the password: %v", raw, err)
		}
	}
}
