package mysqlcheck

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Issue 31: a DSN with a space where the @ belongs parsed with
// "user:password tcp" as the network, and the dialler's error quoted it in
// every output. A network other than tcp, tcp6 or unix is refused without
// quoting it; no error of New quotes the connection string.
func TestNewNeverQuotesTheDSN(t *testing.T) {
	for _, dsn := range []string{
		"root:hunter2 tcp(127.0.0.1:3306)/",           // the space where the @ belongs
		"root:hunter2@tcp(127.0.0.1:3306)/?timeout=x", // a bad parameter
		"root:hunter2 tcp/",                           // no address: the driver quotes the network
		"root:hunter2@tcp(127.0.0.1:3306)",            // no slash
		"root:hunter2@udp(127.0.0.1:3306)/",           // another network
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

// The parsed password is what a program registers with its redactor.
func TestSecrets(t *testing.T) {
	if got := Secrets("root:hunter2@tcp(127.0.0.1:3306)/"); !slices.Equal(got, []string{"hunter2"}) {
		t.Errorf("secrets %q", got)
	}
	if got := Secrets("root:hunter2 tcp/"); got != nil {
		t.Errorf("secrets of a DSN that does not parse: %q", got)
	}
}

// A DSN that sets no timeout gets the package's, so that a silent server
// fails the check even under a context without a deadline (--timeout 0);
// one that sets them keeps its own.
func TestDefaultTimeouts(t *testing.T) {
	s, err := New("root:pw@tcp(127.0.0.1:3306)/")
	if err != nil {
		t.Fatal(err)
	}
	if s.cfg.Timeout != DefaultConnectTimeout || s.cfg.ReadTimeout != DefaultReadTimeout {
		t.Errorf("timeouts %v, %v", s.cfg.Timeout, s.cfg.ReadTimeout)
	}
	s, err = New("root:pw@tcp(127.0.0.1:3306)/?timeout=2s&readTimeout=3s")
	if err != nil {
		t.Fatal(err)
	}
	if s.cfg.Timeout != 2*time.Second || s.cfg.ReadTimeout != 3*time.Second {
		t.Errorf("timeouts %v, %v", s.cfg.Timeout, s.cfg.ReadTimeout)
	}
}
