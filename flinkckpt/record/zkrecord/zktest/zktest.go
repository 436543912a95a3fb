// Package zktest starts a real ZooKeeper server for tests: Debian's
// zookeeper package (its server jar, run by java) on a temporary data dir,
// listening on a 127.0.0.1 port. A machine without the jar or java skips
// the test with a message; under CI=true it fails (.ci/run installs
// Debian's zookeeper).
package zktest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// Server is a running ZooKeeper, stopped when the test ends.
type Server struct {
	// Addr is host:port on 127.0.0.1.
	Addr string
	// Conn is a session on the server for the test's own writes.
	Conn *zk.Conn
	t    testing.TB
}

// Jars are where Debian's zookeeper package puts the server (its manifest
// names the libraries it needs).
var Jars = []string{"/usr/share/java/zookeeper.jar", "/usr/share/zookeeper/zookeeper.jar"}

func find() (java, jar string) {
	java, _ = exec.LookPath("java")
	for _, j := range Jars {
		if _, err := os.Stat(j); err == nil {
			return java, j
		}
	}
	return java, ""
}

// Start starts a standalone server for t and opens a session on it.
func Start(t testing.TB) *Server {
	t.Helper()
	java, jar := find()
	if java == "" || jar == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("zktest: no java or ZooKeeper server jar: .ci/run installs Debian's zookeeper")
		}
		t.Skip("zktest: no java or /usr/share/java/zookeeper.jar: install Debian's zookeeper to run this test")
	}
	dir := t.TempDir()
	// A port picked free may be taken again before the JVM binds it (a
	// busy machine): the server then exits, and Start tries another.
	for attempt := 1; ; attempt++ {
		s, exited := start(t, java, jar, filepath.Join(dir, fmt.Sprint(attempt)))
		if s != nil {
			return s
		}
		if attempt == 3 {
			t.Fatalf("zktest: the server exited three times:\n%s", exited)
		}
	}
}

// start runs one server in dir; nil and its log when it exited before a
// session was had.
func start(t testing.TB, java, jar, dir string) (*Server, string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cfg := filepath.Join(dir, "zoo.cfg")
	conf := fmt.Sprintf("tickTime=500\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\nforceSync=no\nmaxSessionTimeout=60000\n", filepath.Join(dir, "data"), port)
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(java, "-Xmx128m", "-Dzookeeper.preAllocSize=1024", "-cp", jar, "org.apache.zookeeper.server.ZooKeeperServerMain", cfg)
	logf, _ := os.Create(filepath.Join(dir, "log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("zktest: start: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		logf.Close()
	})
	s := &Server{Addr: fmt.Sprintf("127.0.0.1:%d", port), t: t}
	// Readiness: a probe session with a short timeout, which the client
	// retries by itself until the server answers (bounded: 120 s for a JVM
	// on a loaded machine). go-zookeeper waits for the handshake's answer
	// 10 × 2/3 of the session timeout: with the test session's 30 s that is
	// 200 s, so a handshake the starting server accepted and never answered
	// (seen under load) wedged the client past the bound; with 3 s it is
	// 20 s, and the client tries again.
	deadline := time.After(120 * time.Second)
	if exitLog, ok := s.await(3*time.Second, deadline, exited, dir); !ok {
		return nil, exitLog
	}
	// The server answers: the test's own session.
	conn, ok := s.connect(30*time.Second, deadline, exited, dir)
	if !ok {
		b, _ := os.ReadFile(filepath.Join(dir, "log"))
		return nil, string(b)
	}
	t.Cleanup(conn.Close)
	s.Conn = conn
	return s, ""
}

// await opens a session with the given timeout and closes it: true when
// the server gave one; false and its log when it exited first.
func (s *Server) await(timeout time.Duration, deadline <-chan time.Time, exited <-chan struct{}, dir string) (string, bool) {
	conn, ok := s.connect(timeout, deadline, exited, dir)
	if !ok {
		b, _ := os.ReadFile(filepath.Join(dir, "log"))
		return string(b), false
	}
	conn.Close()
	return "", true
}

// connect opens a session with the given timeout: the connection, or false
// when the server exited first; the test fails at the deadline.
func (s *Server) connect(timeout time.Duration, deadline <-chan time.Time, exited <-chan struct{}, dir string) (*zk.Conn, bool) {
	s.t.Helper()
	conn, events, err := zk.Connect([]string{s.Addr}, timeout, zk.WithLogger(quiet{}))
	if err != nil {
		s.t.Fatal(err)
	}
	var seen []string
	for {
		select {
		case ev := <-events:
			seen = append(seen, ev.State.String())
			if ev.State == zk.StateHasSession {
				return conn, true
			}
		case <-exited:
			conn.Close()
			return nil, false
		case <-deadline:
			conn.Close()
			b, _ := os.ReadFile(filepath.Join(dir, "log"))
			s.t.Fatalf("zktest: no session on %s within 120 s (client states %v):\n%s", s.Addr, seen, b)
		}
	}
}

// Create creates the node at path with data, and its missing parents.
func (s *Server) Create(path string, data []byte) {
	s.t.Helper()
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i := 1; i < len(parts); i++ {
		p := "/" + strings.Join(parts[:i], "/")
		if _, err := s.Conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && err != zk.ErrNodeExists {
			s.t.Fatalf("zktest: create %s: %v", p, err)
		}
	}
	if _, err := s.Conn.Create(path, data, 0, zk.WorldACL(zk.PermAll)); err != nil {
		s.t.Fatalf("zktest: create %s: %v", path, err)
	}
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}
