package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// ErrUnavailable is the cause of every error saying PostgreSQL cannot run
// here (as opposed to one that broke while running).
var ErrUnavailable = errors.New("PostgreSQL cannot be started here")

// Superuser is the role initdb makes, trusted on the socket.
const Superuser = "postgres"

// port names the socket file (.s.PGSQL.<port>) of a cluster that listens
// on no TCP port.
const socketPort = "5432"

// Server is one running throwaway cluster.
type Server struct {
	bin  string // the directory holding initdb and postgres
	dir  string // the temporary directory: data/, the socket, the log
	cred *credential
	// tls is set for a cluster started by StartTLS: it also listens on a
	// loopback port, and takes connections there only over TLS.
	tls  *tlsSetup
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// port is the port the server listens on (and names its socket by).
func (s *Server) port() string {
	if s.tls != nil {
		return s.tls.port
	}
	return socketPort
}

// binDir finds a directory holding initdb, pg_ctl and postgres: the one of
// initdb on PATH, else Debian's /usr/lib/postgresql/<version>/bin, the
// newest version first.
func binDir() (string, error) {
	has := func(dir string) bool {
		for _, name := range []string{"initdb", "postgres"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil { // not a workspace path: the PostgreSQL installation
				return false
			}
		}
		return true
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil && has(filepath.Dir(real)) { // not a workspace path: the PostgreSQL installation
			return filepath.Dir(real), nil
		}
		if has(filepath.Dir(p)) {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin") // not a workspace path: Debian's layout
	slices.SortFunc(dirs, func(a, b string) int { return versionOf(b) - versionOf(a) })
	for _, d := range dirs {
		if has(d) {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w: no initdb with a postgres beside it on PATH or under /usr/lib/postgresql/*/bin (Debian: apt-get install postgresql)", ErrUnavailable)
}

// versionOf reads the major version out of /usr/lib/postgresql/<v>/bin.
func versionOf(dir string) int {
	v := 0
	for _, c := range filepath.Base(filepath.Dir(dir)) {
		if c < '0' || c > '9' {
			break
		}
		v = v*10 + int(c-'0')
	}
	return v
}

// Start makes a new cluster in a temporary directory and starts it.
func Start(ctx context.Context) (*Server, error) { return start(ctx, false) }

// StartTLS makes a new cluster that also listens on a loopback TCP port,
// where it takes connections only over TLS, with a certificate for the
// name localhost (not for the address 127.0.0.1) signed by a certificate authority of its own
// (CA). Connections to it are made with TLSURL.
func StartTLS(ctx context.Context) (*Server, error) { return start(ctx, true) }

func start(ctx context.Context, withTLS bool) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	cred, err := unprivileged()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "stet-pg-") // not a workspace path: the test cluster's own directory
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, dir: dir, cred: cred}
	if err := s.init(ctx); err != nil {
		os.RemoveAll(dir) // not a workspace path: the test cluster's own directory
		return nil, err
	}
	if withTLS {
		if s.tls, err = s.setupTLS(); err != nil {
			os.RemoveAll(dir) // not a workspace path: the test cluster's own directory
			return nil, err
		}
	}
	if err := s.Start(ctx); err != nil {
		os.RemoveAll(dir) // not a workspace path: the test cluster's own directory
		return nil, err
	}
	return s, nil
}

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

func (s *Server) init(ctx context.Context) error {
	// The directory is entered by the cluster's user; data/ is its own.
	if err := os.Chmod(s.dir, 0o755); err != nil { // not a workspace path: the test cluster's own directory
		return err
	}
	if err := s.cred.own(s.dir); err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, "initdb"), "-D", s.data(), "-U", Superuser,
		"--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync")
	cmd.Dir = s.dir
	s.cred.apply(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: initdb: %v: %s", ErrUnavailable, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Start starts the server (again, after Stop) on the same data and socket,
// and waits until it accepts connections.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return nil
	}
	logf, err := os.OpenFile(filepath.Join(s.dir, "server.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644) // not a workspace path: the test cluster's log
	if err != nil {
		return err
	}
	args := []string{"-D", s.data(), "-k", s.dir, "-p", s.port(),
		"-c", "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "shared_buffers=64MB"}
	if s.tls != nil {
		args = append(args, "-c", "listen_addresses=127.0.0.1", "-c", "ssl=on",
			"-c", "ssl_cert_file="+s.tls.cert, "-c", "ssl_key_file="+s.tls.key)
	}
	cmd := exec.Command(filepath.Join(s.bin, "postgres"), args...)
	cmd.Dir = s.dir
	cmd.Stdout, cmd.Stderr = logf, logf
	s.cred.apply(cmd)
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("%w: postgres: %v", ErrUnavailable, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(done) }()
	s.cmd, s.done = cmd, done
	sock := filepath.Join(s.dir, ".s.PGSQL."+s.port())
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(sock + ".lock"); err == nil { // not a workspace path: the test cluster's socket
			if ready(ctx, s.URL("postgres", Superuser)) == nil {
				return nil
			}
		}
		select {
		case <-done:
			s.cmd = nil
			return fmt.Errorf("%w: postgres exited at start: %s", ErrUnavailable, s.logTail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within 30 s: %s", s.logTail())
		}
	}
}

// logTail is the end of the server's log, for messages.
func (s *Server) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "server.log")) // not a workspace path: the test cluster's log
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return strings.TrimSpace(string(b))
}

// Stop shuts the server down (fast shutdown: open sessions are ended) and
// waits for it. The data stays: Start serves it again.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd = nil
}

// Close stops the server and removes its directory.
func (s *Server) Close() {
	s.Stop()
	os.RemoveAll(s.dir) // not a workspace path: the test cluster's own directory
}

// URL is the connection string of database db as role.
func (s *Server) URL(db, role string) string {
	q := url.Values{"host": {s.dir}, "port": {s.port()}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.User(role), Path: "/" + db, RawQuery: q.Encode()}).String()
}
