package review

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stet-dev/stet"
)

//go:embed page
var page embed.FS

// NotSeen is the plain statement of what stet does not see, shown on the
// page.
const NotSeen = "stet sees only the changes made through its own tools. A file changed by a shell command, an editor, " +
	"a build or git appears here only as \"changed since\": stet proves that the file no longer holds an agent's result, " +
	"but not who changed it or how. Such a change is never undone by stet: undo refuses rather than lose it."

// Handler answers the page and its JSON endpoints over a Source.
type Handler struct {
	src   Source
	token string
	port  string     // the port the Host header must carry; "" accepts any
	undo  sync.Mutex // one undo at a time from this page
	mux   *http.ServeMux
}

// NewHandler returns the handler for ws, accepting requests that carry
// token. An empty token is refused: the token is what keeps other local
// users and pages out.
func NewHandler(ws *stet.Workspace, token string) (*Handler, error) {
	return NewSourceHandler(workspaceSource{ws}, token)
}

// NewSourceHandler is NewHandler over any Source (a fleet's database).
func NewSourceHandler(src Source, token string) (*Handler, error) {
	if len(token) < 16 {
		return nil, errors.New("review: the token must be at least 16 characters")
	}
	h := &Handler{src: src, token: token, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /{$}", h.asset("index.html", "text/html; charset=utf-8"))
	h.mux.HandleFunc("GET /app.js", h.asset("app.js", "text/javascript; charset=utf-8"))
	h.mux.HandleFunc("GET /app.css", h.asset("app.css", "text/css; charset=utf-8"))
	h.mux.HandleFunc("GET /api/about", h.about)
	h.mux.HandleFunc("GET /api/sessions", h.sessions)
	h.mux.HandleFunc("GET /api/session", h.session)
	h.mux.HandleFunc("GET /api/summary", h.summary)
	h.mux.HandleFunc("GET /api/diff", h.diff)
	h.mux.HandleFunc("GET /api/stands", h.stands)
	h.mux.HandleFunc("GET /api/refusals", h.refusals)
	h.mux.HandleFunc("GET /api/history", h.history)
	h.mux.HandleFunc("GET /api/search", h.search)
	h.mux.HandleFunc("GET /api/verify", h.verify)
	h.mux.HandleFunc("POST /api/undo", h.undoSet)
	return h, nil
}

// NewToken returns a random token of 32 hex digits.
func NewToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("review: token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// loopbackHost reports whether host (no port) names this machine's
// loopback interface.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// ServeHTTP checks the Host, the Origin and the token of every request
// before it reaches a page or an endpoint.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, ""
	}
	if !loopbackHost(host) || (h.port != "" && port != h.port) {
		writeErr(w, http.StatusForbidden, "this page answers only to a loopback host name (127.0.0.1, ::1, localhost)")
		return
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Scheme != "http" || u.Host != r.Host {
			writeErr(w, http.StatusForbidden, "requests from another origin are refused")
			return
		}
	}
	// A browser opening the page from stet review --open's private
	// hand-off file navigates cross-site; that alone is let through: a
	// top-level GET of the page, which changes nothing (its token is still
	// checked). Every endpoint and asset must come from the page itself.
	navigate := r.Method == http.MethodGet && r.URL.Path == "/" && r.Header.Get("Sec-Fetch-Mode") == "navigate" && r.Header.Get("Sec-Fetch-Dest") == "document"
	if site := r.Header.Get("Sec-Fetch-Site"); (site == "cross-site" || site == "same-site") && !navigate {
		writeErr(w, http.StatusForbidden, "requests from another site are refused")
		return
	}
	tok := r.URL.Query().Get("t")
	if tok == "" {
		tok = r.Header.Get("X-Stet-Token")
	}
	if subtle.ConstantTimeCompare([]byte(tok), []byte(h.token)) != 1 {
		writeErr(w, http.StatusUnauthorized, "missing or wrong token: open the address stet review printed")
		return
	}
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) asset(name, ctype string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := page.ReadFile("page/" + name)
		if err != nil {
			writeErr(w, http.StatusInternalServerError, err.Error())
			return
		}
		w.Header().Set("Content-Type", ctype)
		// The token is hex: safe inside the page's attributes.
		w.Write([]byte(strings.ReplaceAll(string(b), "{{TOKEN}}", h.token)))
	}
}

func writeErr(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// reply writes v, or the error: a refusal as 409 with its JSON, anything
// else as 500.
func reply(w http.ResponseWriter, v any, err error) {
	if err != nil {
		if ref, ok := stet.AsRefusal(err); ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusConflict)
			json.NewEncoder(w).Encode(ref)
			return
		}
		writeErr(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func intParam(r *http.Request, name string, def int) int {
	if v, err := strconv.Atoi(r.URL.Query().Get(name)); err == nil {
		return v
	}
	return def
}

func (h *Handler) about(w http.ResponseWriter, r *http.Request) {
	v, err := h.src.About(r.Context())
	reply(w, v, err)
}

// sessionPage is how many sessions /api/sessions gives at most at once
// (offset pages on; /api/summary counts them all).
const sessionPage = 100

func (h *Handler) sessions(w http.ResponseWriter, r *http.Request) {
	v, err := h.src.Sessions(r.Context(), SessionQuery{Offset: max(intParam(r, "offset", 0), 0),
		Limit: min(max(intParam(r, "limit", sessionPage), 1), sessionPage), Q: r.URL.Query().Get("q")})
	reply(w, v, err)
}

func (h *Handler) session(w http.ResponseWriter, r *http.Request) {
	v, err := h.src.Session(r.Context(), r.URL.Query().Get("id"))
	reply(w, v, err)
}

func (h *Handler) diff(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := min(max(intParam(r, "limit", 1), 1), 20)
	v, err := h.src.Diff(r.Context(), stet.DiffSpec{Session: q.Get("session"), Turn: intParam(r, "turn", 0), Path: q.Get("path"),
		Offset: intParam(r, "offset", 0), Limit: limit})
	reply(w, v, err)
}

func (h *Handler) stands(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v, err := h.src.Stands(r.Context(), q.Get("session"), q.Get("receipt"))
	if err == nil && q.Get("receipt") != "" && len(v) == 1 {
		reply(w, v[0], nil)
		return
	}
	reply(w, v, err)
}

func (h *Handler) refusals(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v, err := h.src.Refusals(r.Context(), stet.RefusalQuery{Session: q.Get("session"), Kind: q.Get("kind"),
		Offset: max(intParam(r, "offset", 0), 0), Limit: min(max(intParam(r, "limit", stet.RefusalPage), 1), 500)})
	reply(w, v, err)
}

func (h *Handler) summary(w http.ResponseWriter, r *http.Request) {
	v, err := h.src.Summary(r.Context())
	reply(w, v, err)
}

func (h *Handler) history(w http.ResponseWriter, r *http.Request) {
	v, err := h.src.History(r.Context(), r.URL.Query().Get("path"))
	reply(w, v, err)
}

func (h *Handler) search(w http.ResponseWriter, r *http.Request) {
	v, err := h.src.SearchPaths(r.Context(), r.URL.Query().Get("q"), 100)
	reply(w, v, err)
}

func (h *Handler) verify(w http.ResponseWriter, r *http.Request) {
	ok, rep, err := h.src.Verify(r.Context())
	reply(w, map[string]any{"ok": ok, "report": rep}, err)
}

// undoRequest is the body of POST /api/undo.
type undoRequest struct {
	Receipts []string `json:"receipts"`
	Session  string   `json:"session"`
	Turn     int      `json:"turn"`
	Path     string   `json:"path"`
	DryRun   bool     `json:"dry_run"`
	// Expect is the set of the preview being confirmed (UndoResult.Set):
	// the page always sends it, so a click performs what it showed.
	Expect string `json:"expect"`
}

func (h *Handler) undoSet(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeErr(w, http.StatusUnsupportedMediaType, "send the undo as application/json")
		return
	}
	var req undoRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeErr(w, http.StatusBadRequest, "bad undo request: "+err.Error())
		return
	}
	spec := stet.UndoSpec{Receipts: req.Receipts, Session: req.Session, Turn: req.Turn, Path: req.Path, DryRun: req.DryRun, Expect: req.Expect}
	u, ok := h.src.(Undoer)
	if !ok {
		// Undo runs on the machine that holds the files: say what to run
		// there.
		if c, ok := h.src.(UndoCommander); ok {
			v, err := c.UndoCommand(r.Context(), spec)
			reply(w, map[string]any{"command": v}, err)
			return
		}
		writeErr(w, http.StatusNotImplemented, "undo runs on the machine that holds the files")
		return
	}
	h.undo.Lock()
	defer h.undo.Unlock()
	v, err := u.UndoChanges(r.Context(), spec)
	if ref, ok := stet.AsRefusal(err); ok && req.Expect != "" && ref.Kind == stet.KindChanged && ref.Details["expected"] == req.Expect {
		// The set changed since the preview: answer with the new preview,
		// so the person sees what a confirm would now do.
		spec.DryRun, spec.Expect = true, ""
		if preview, perr := u.UndoChanges(r.Context(), spec); perr == nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusConflict)
			json.NewEncoder(w).Encode(map[string]any{"refused": ref.Kind, "message": ref.Message, "preview": preview})
			return
		}
	}
	reply(w, v, err)
}

// Server is a Handler listening on a loopback address.
type Server struct {
	h   *Handler
	ln  net.Listener
	srv *http.Server
	url string
}

// Listen opens addr (which must be a loopback address; port 0 picks a
// random one) and prepares the page for ws with a fresh token. A
// non-loopback address is refused.
func Listen(ws *stet.Workspace, addr string) (*Server, error) {
	return ListenSource(workspaceSource{ws}, addr)
}

// ListenSource is Listen over any Source.
func ListenSource(src Source, addr string) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("review: address %q: %w", addr, err)
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("review: %q is not a loopback address: stet review serves this machine only (use 127.0.0.1 or [::1])", addr)
	}
	tok, err := NewToken()
	if err != nil {
		return nil, err
	}
	h, err := NewSourceHandler(src, tok)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("review: %w", err)
	}
	_, h.port, _ = net.SplitHostPort(ln.Addr().String())
	s := &Server{h: h, ln: ln, srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	s.url = "http://" + ln.Addr().String() + "/?t=" + tok
	return s, nil
}

// URL is the page's address, token included.
func (s *Server) URL() string { return s.url }

// Serve answers requests until ctx is done.
func (s *Server) Serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Serve(s.ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return s.srv.Shutdown(sctx)
	}
}

// Close stops listening.
func (s *Server) Close() error {
	s.ln.Close()
	return s.srv.Close()
}
