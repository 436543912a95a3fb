package pgcheck

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Issue 31: a key=value connection string pgx refuses was quoted whole by
// New (pgx masks its own message; New's prefix printed it again). New
// says "connection string (not shown)" and pgx's message only.
func TestNewNeverQuotesTheDSN(t *testing.T) {
	for _, dsn := range []string{
		"host=127.0.0.1 user=u password=hunter2 sslmode=bogus",
		"host=127.0.0.1 user=u password=hunter2 port=notaport",
		"postgres://u:hunter2@127.0.0.1:notaport/db",
		"host=127.0.0.1 user=u password='hunter2",
	} {
		_, err := New(dsn)
		if err == nil {
			t.Errorf("%q accepted", dsn)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "connection string (not shown)") {
			t.Errorf("%q: %v", dsn, err)
		}
	}
}

// The password pgx resolves, from the string or PGPASSWORD, is what a
// program registers with its redactor.
func TestSecrets(t *testing.T) {
	if got := Secrets("host=127.0.0.1 user=u password=hunter2"); !slices.Equal(got, []string{"hunter2"}) {
		t.Errorf("secrets %q", got)
	}
	t.Setenv("PGPASSWORD", "hunter3")
	if got := Secrets("postgres://u@127.0.0.1/db"); !slices.Equal(got, []string{"hunter3"}) {
		t.Errorf("secrets from PGPASSWORD %q", got)
	}
}

// A connection string without connect_timeout gets the package's, so that
// a silent server fails the check under a context without a deadline.
func TestDefaultConnectTimeout(t *testing.T) {
	s, err := New("host=127.0.0.1 user=u")
	if err != nil {
		t.Fatal(err)
	}
	if s.cfg.ConnectTimeout != DefaultConnectTimeout {
		t.Errorf("connect timeout %v", s.cfg.ConnectTimeout)
	}
	s, err = New("host=127.0.0.1 user=u connect_timeout=3")
	if err != nil {
		t.Fatal(err)
	}
	if s.cfg.ConnectTimeout != 3*time.Second {
		t.Errorf("connect timeout %v", s.cfg.ConnectTimeout)
	}
}
