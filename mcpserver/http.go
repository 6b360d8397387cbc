package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where Handler serves MCP.
const Path = "/mcp"

// ServeHTTP serves streamable HTTP at /mcp on addr (exactly that address)
// until ctx is done; then it stops accepting, gives open requests a few
// seconds, and returns ctx's error. With a token, every request must carry
// "Authorization: Bearer <token>".
func (s *Server) ServeHTTP(ctx context.Context, addr, token string) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("mcpserver: %w", err)
	}
	return s.ServeListener(ctx, ln, token)
}

// ServeListener is ServeHTTP on a listener the caller opened (so that it
// can say which port an address like 127.0.0.1:0 got before serving); it
// closes ln when it returns.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, token string) error {
	hs := &http.Server{
		Handler:           s.Handler(token),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("mcpserver: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		hs.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("mcpserver: %w", err)
	}
	return ctx.Err()
}

// Handler is the streamable HTTP handler: MCP at /mcp, 404 elsewhere. With
// a non-empty token, every request must carry "Authorization: Bearer
// <token>" (compared in constant time); others get 401 with a JSON-RPC
// error body. Each MCP session (Mcp-Session-Id) is one client connection
// and gets its own stet session; an MCP 2026-07-28 request without one is
// served statelessly, its stet session named by a handle the server mints
// and the caller passes back (see stateless.go). Request bodies over
// MaxMessageBytes get 413.
//
// As the MCP streamable HTTP transport requires (against DNS rebinding and
// pages of other sites), a request with an Origin header is served only
// when the origin is a loopback one (http or https on localhost,
// 127.0.0.0/8 or ::1) or one of Options.AllowOrigins; others get 403 with
// a JSON-RPC error body. Requests without Origin (clients that are not
// browsers) are not affected.
func (s *Server) Handler(token string) http.Handler {
	idle := s.o.IdleTimeout
	if idle == 0 {
		idle = DefaultIdleTimeout
	} else if idle < 0 {
		idle = 0 // never
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes: MaxMessageBytes,
		Logger:              s.o.Logger,
		SessionTimeout:      idle,
	})
	// MCP 2026-07-28 requests without Mcp-Session-Id are served statelessly
	// (go-sdk serves that revision only so); see stateless.go.
	sl := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		MaxRequestBodyBytes: MaxMessageBytes,
		Logger:              s.o.Logger,
	})
	mux := http.NewServeMux()
	ih := initFirst(h)
	mux.Handle(Path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if statelessHTTP(r) {
			sl.ServeHTTP(w, r)
			return
		}
		ih.ServeHTTP(w, r)
	}))
	return origins(s.o.AllowOrigins, bearer(token, mux))
}

// initFirst answers a request that opens a connection (a POST without
// Mcp-Session-Id) with anything but initialize or ping, and without the
// sessionless protocol's _meta, with HTTP 400 and the JSON-RPC error
// -32600 (invalid request: not in this state), as the stdio transport
// answers it (see withErrorCode); go-sdk would answer it with code 0.
func initFirst(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxMessageBytes+1))
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			next.ServeHTTP(w, r)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" || m.Method == "" ||
			m.Method == "initialize" || m.Method == "ping" || m.Method == "server/discover" || m.Params.Meta[mcp.MetaKeyProtocolVersion] != nil {
			next.ServeHTTP(w, r)
			return
		}
		line, err := errorLine(m.ID, jsonrpc.CodeInvalidRequest, fmt.Sprintf("method %q is invalid during session initialization: send initialize first", m.Method))
		if err != nil {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(line)
	})
}

// origins refuses requests whose Origin is neither loopback nor allowed.
func origins(allowed []string, next http.Handler) http.Handler {
	ok := make(map[string]bool, len(allowed))
	for _, a := range allowed {
		ok[strings.ToLower(strings.TrimRight(a, "/"))] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o := r.Header.Get("Origin")
		if o == "" || ok[strings.ToLower(o)] || loopbackOrigin(o) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		msg := fmt.Sprintf("forbidden: requests from origin %q are not served; this server answers loopback origins and those it was started with (--allow-origin)", o)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32002,"message":%q}}`+"\n", msg)
	})
}

// loopbackOrigin reports whether origin is http(s) on a loopback host.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || (u.Path != "" && u.Path != "/") {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// bearer requires "Authorization: Bearer <token>" on every request when
// token is not empty.
func bearer(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearerToken(r.Header.Get("Authorization"))
		// Hashing both sides makes the comparison independent of the
		// token's length as well as its bytes.
		sum := sha256.Sum256([]byte(got))
		if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="stet"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			msg := "unauthorized: this server needs the header \"Authorization: Bearer <token>\" with the token it was started with"
			if ok {
				msg = "unauthorized: the bearer token is wrong"
			}
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":%q}}`+"\n", msg)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearerToken returns the token of an "Authorization: Bearer" header.
func bearerToken(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}
