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
	// Readiness: the client retries the connection itself until it has a
	// session (bounded: 120 s for a JVM on a loaded machine).
	conn, events, err := zk.Connect([]string{s.Addr}, 30*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(120 * time.Second)
	var seen []string
	for up := false; !up; {
		select {
		case ev := <-events:
			seen = append(seen, ev.State.String())
			up = ev.State == zk.StateHasSession
		case <-exited:
			conn.Close()
			b, _ := os.ReadFile(filepath.Join(dir, "log"))
			return nil, string(b)
		case <-deadline:
			b, _ := os.ReadFile(filepath.Join(dir, "log"))
			t.Fatalf("zktest: no session on %s within 120 s (client states %v):\n%s", s.Addr, seen, b)
		}
	}
	t.Cleanup(conn.Close)
	s.Conn = conn
	return s, ""
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
