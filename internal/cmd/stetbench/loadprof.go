package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/mcpserver"
)

// inProcessHTTP serves stet's MCP handler in this process on a loopback
// port, for profiles (-profile): the same handler `stet mcp --http` serves.
type inProcessHTTP struct {
	url  string
	ws   *stet.Workspace
	srv  *mcpserver.Server
	hs   *http.Server
	done chan error
}

const inProcessToken = "load-in-process"

func startInProcessHTTP(ctx context.Context, root, state string) (*inProcessHTTP, error) {
	ws, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		return nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		ws.Close()
		return nil, err
	}
	s := &inProcessHTTP{url: "http://" + ln.Addr().String() + mcpserver.Path, ws: ws, done: make(chan error, 1)}
	s.srv = mcpserver.New(ws, mcpserver.Options{Version: "stetbench"})
	s.hs = &http.Server{Handler: s.srv.Handler(inProcessToken)}
	go func() { s.done <- s.hs.Serve(ln) }()
	return s, nil
}

func (s *inProcessHTTP) endpoint() string         { return s.url }
func (s *inProcessHTTP) bearer() string           { return inProcessToken }
func (s *inProcessHTTP) pid() int                 { return 0 }
func (s *inProcessHTTP) describe(err error) error { return err }

func (s *inProcessHTTP) stop() {
	s.hs.Close()
	<-s.done
	s.srv.Close()
	s.ws.Close()
}

// startProfiles starts a CPU profile and mutex and block sampling; stop
// writes the three profiles of n clients into dir. Mutex and block
// profiles count from the process's start: profile one client count per
// run of stetbench.
func startProfiles(dir string, n int) (stop func(), err error) {
	if err := makeDir(dir); err != nil {
		return nil, err
	}
	name := func(kind string) string { return filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", kind, n)) }
	cpu, err := os.Create(name("cpu")) // not a workspace path: the profile the operator asked for
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		cpu.Close()
		return nil, err
	}
	runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(int(10e3)) // a sample per 10 µs blocked
	return func() {
		pprof.StopCPUProfile()
		cpu.Close()
		for _, kind := range []string{"mutex", "block"} {
			f, err := os.Create(name(kind)) // not a workspace path: the profile the operator asked for
			if err == nil {
				err = errors.Join(pprof.Lookup(kind).WriteTo(f, 0), f.Close())
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "stetbench: %s profile: %v\n", kind, err)
			}
		}
		runtime.SetMutexProfileFraction(0)
		runtime.SetBlockProfileRate(0)
	}, nil
}
