package app

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/logbook/logbook/frontend"
)

// ServerOptions configure the HTTP server of the browser UI.
type ServerOptions struct {
	// Addr is the address the server listens on, with the real port (after
	// binding port 0). Requests must name it, or a loopback alias with its port,
	// in their Host header.
	Addr string
	// Token is the per-run secret a browser presents: once in the URL, then from
	// the page's memory in the X-Logbook-Token header (see auth.go). NewServer
	// draws a random one when empty.
	Token string
	// AllowRemote drops the Host check, for a server deliberately reachable from
	// other machines; the token and the Origin check still apply.
	AllowRemote bool
	// Assets is the UI bundle; frontend.Dist() when nil.
	Assets fs.FS
	// KeepAlive is the gap between keep-alive comments on the event stream; 25 s when 0.
	KeepAlive time.Duration
	// WriteTimeout bounds one write to an event stream, and writing a whole
	// answer (an API result, a file of the bundle); a browser that reads nothing
	// for that long (a stuck tab, a client that stopped reading) is dropped, so it
	// never holds a goroutine or a graceful shutdown. 15 s when 0.
	WriteTimeout time.Duration
	// BodyTimeout bounds reading a request's body, counted from the end of its
	// headers: a client that stalls mid-body gets 408 and its connection closed,
	// instead of holding it open. 10 s when 0.
	BodyTimeout time.Duration
	// ShutdownTimeout bounds how long ListenAndServe waits for requests in flight
	// before closing their connections; 5 s when 0.
	ShutdownTimeout time.Duration
	Logger          *slog.Logger
}

// Server serves the UI bundle and the App's methods over HTTP, for `logbook
// serve` and a browser. It is separate from App because every exported method of
// App is bound into the window.
//
// Protection against other web pages, other local servers and other local users'
// browsers:
//   - a per-run token, never in a cookie (cookies ignore ports, so every server on
//     127.0.0.1 would get it): the page takes it from the link's ?token=, keeps it
//     in sessionStorage (per origin, port included) and sends it in the
//     X-Logbook-Token header with every /api call; the event stream, which cannot
//     set headers, carries it in its URL;
//   - the Host header must be the listen address or a loopback alias with its port,
//     so a DNS-rebound name pointing at 127.0.0.1 gets nothing (421);
//   - an Origin header, when present, must be this server's own origin (403);
//   - a request a browser labels cross-site or same-site (Sec-Fetch-Site), which
//     includes pages served by other ports of this machine, is refused (403) unless
//     it is a top-level navigation, so no other page can even open the event stream
//     or time the API with the user's cookie;
//   - POST /api requires Content-Type application/json, which no HTML form can send
//     without a CORS preflight this server never grants.
//
// The UI bundle itself (the page and its scripts) holds no data and is served
// without the token; a wrong ?token= on a page link is refused at once.
type Server struct {
	app     *App
	hub     *Hub
	opts    ServerOptions
	log     *slog.Logger
	methods map[string]reflect.Method
	hosts   map[string]bool
	legacy  string // the cookie earlier versions set; expired when seen
	mux     *http.ServeMux

	closeOnce sync.Once
	closed    chan struct{}
}

// maxBody bounds a request body: arguments are ids, queries and small structs.
const maxBody = 1 << 20

// notBound are the App methods that are not JavaScript API (the Wails lifecycle
// hooks), so they are not served either.
var notBound = map[string]bool{"Startup": true, "Shutdown": true}

// NewServer returns the HTTP handler for a; hub supplies the event stream.
func NewServer(a *App, hub *Hub, opts ServerOptions) *Server {
	if opts.Token == "" {
		b := make([]byte, 32)
		_, _ = rand.Read(b) // never fails (crypto/rand panics instead)
		opts.Token = base64.RawURLEncoding.EncodeToString(b)
	}
	if opts.Assets == nil {
		opts.Assets = frontend.Dist()
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = 25 * time.Second
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 15 * time.Second
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = 10 * time.Second
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 5 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Server{app: a, hub: hub, opts: opts, log: opts.Logger.With("component", "server"),
		methods: map[string]reflect.Method{}, hosts: map[string]bool{}, closed: make(chan struct{})}
	t := reflect.TypeOf(a)
	for i := range t.NumMethod() {
		if m := t.Method(i); !notBound[m.Name] {
			s.methods[m.Name] = m
		}
	}
	port := ""
	if _, p, err := net.SplitHostPort(opts.Addr); err == nil {
		port = p
	}
	s.legacy = "logbook_token_" + port
	s.hosts[strings.ToLower(opts.Addr)] = true
	for _, h := range []string{"127.0.0.1", "localhost", "[::1]"} {
		s.hosts[h+":"+port] = true
		if port == "80" {
			s.hosts[h] = true // a browser leaves out the default port
		}
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /api/events", s.serveEvents)
	s.mux.HandleFunc("POST /api/{method}", s.serveCall)
	s.mux.HandleFunc("POST /api/upload/bundle", s.serveBundleUpload) // bundleimport.go
	s.mux.HandleFunc("GET "+downloadPrefix+"{id}", s.serveDownload)  // download.go
	s.routeEvents()
	// The machine-to-machine endpoints are each wrapped in machine: the events
	// API (routeEvents), the webhook (when Deps.Webhook is set), and the prefixes
	// reserved for endpoints to come, where a request with a valid key gets
	// FastAPI's 404 and one without gets 401.
	wh := a.webhookHandler()
	if wh != nil {
		s.mux.Handle(webhookPrefix, s.machine(wh))
		a.noteWebhook(opts.Addr)
	}
	for _, pre := range machinePrefixes {
		if pre == webhookPrefix && wh != nil {
			continue
		}
		s.mux.Handle(pre, s.machine(http.HandlerFunc(reservedMachine)))
	}
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		if rest := strings.TrimPrefix(r.URL.Path, "/api/"); rest != "" && !strings.Contains(rest, "/") {
			w.Header().Set("Allow", "POST")
			writeError(w, http.StatusMethodNotAllowed, "API methods are called with POST")
			return
		}
		writeError(w, http.StatusNotFound, "no such API endpoint")
	})
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		s.serveStatic(w, r)
	})
	return s
}

// Token returns the per-run secret.
func (s *Server) Token() string { return s.opts.Token }

// URL returns the address to open in a browser, token included.
func (s *Server) URL() string {
	host := s.opts.Addr
	if h, p, err := net.SplitHostPort(host); err == nil && (h == "" || h == "0.0.0.0" || h == "::") {
		host = net.JoinHostPort("127.0.0.1", p)
	}
	return "http://" + host + "/?token=" + url.QueryEscape(s.opts.Token)
}

// Close ends the open event streams (http.Server.Shutdown waits for handlers,
// and a stream never ends by itself) and removes the exports no browser fetched;
// register it with RegisterOnShutdown.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.app.downloads.close()
	})
}

// serveCall runs POST /api/{method}: the body is a JSON array of the method's
// arguments, the response the JSON of its result or {"error": message}.
func (s *Server) serveCall(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		s.refuse(w, r, http.StatusUnsupportedMediaType, "API calls must be sent as application/json")
		return
	}
	name := r.PathValue("method")
	m, ok := s.methods[name]
	if !ok {
		s.refuse(w, r, http.StatusNotFound, fmt.Sprintf("no such method %q", name))
		return
	}
	if r.ContentLength > maxBody {
		s.refuse(w, r, http.StatusRequestEntityTooLarge, "request body too large")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.refuse(w, r, http.StatusRequestEntityTooLarge, "request body too large")
		} else {
			// Past BodyTimeout, or the client went away mid-body.
			s.refuse(w, r, http.StatusRequestTimeout, "the request body did not arrive in time")
		}
		return
	}
	// The body is in: the read deadline now lies on the connection's background
	// read, which net/http starts at the body's end, and a method running past it
	// would have its context cancelled.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	var raw []json.RawMessage
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &raw); err != nil {
			writeError(w, http.StatusBadRequest, "the body must be a JSON array of arguments: "+err.Error())
			return
		}
	}
	ft := m.Func.Type()
	if want := ft.NumIn() - 1; len(raw) != want {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%s takes %d arguments, got %d", name, want, len(raw)))
		return
	}
	args := []reflect.Value{reflect.ValueOf(s.app)}
	for i, arg := range raw {
		v := reflect.New(ft.In(i + 1))
		if err := json.Unmarshal(arg, v.Interface()); err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("%s argument %d: %v", name, i+1, err))
			return
		}
		args = append(args, v.Elem())
	}
	if f := s.app.requestContext(r.Context(), name); f != nil {
		m.Func = reflect.ValueOf(f) // the same method, stopped when the client goes
	}
	out, err := s.call(m, args)
	// A client that never reads its answer must not hold this handler forever.
	_ = rc.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
	if err != nil {
		writeError(w, errorStatus(err), FormatError(err))
		return
	}
	writeJSON(w, http.StatusOK, out)
}

var errorType = reflect.TypeFor[error]()

// call invokes a method and splits its results into a value (nil when it has
// none) and an error; a panic becomes an error, as in Wails.
func (s *Server) call(m reflect.Method, args []reflect.Value) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			// The stack goes to the log only; the client gets FormatError's text.
			s.log.Error("API method panicked", "method", m.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = fmt.Errorf("%s panicked: %v", m.Name, p)
		}
	}()
	res := m.Func.Call(args)
	if n := len(res); n > 0 && res[n-1].Type() == errorType {
		if e := res[n-1]; !e.IsNil() {
			return nil, e.Interface().(error)
		}
		res = res[:n-1]
	}
	if len(res) == 0 {
		return nil, nil
	}
	return res[0].Interface(), nil
}

// serveEvents is GET /api/events: the hub's events as server-sent events, with a
// comment every KeepAlive so proxies and browsers keep the stream open.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	// The stream reads no body: a deadline set for one would end it (see ServeHTTP).
	_ = rc.SetReadDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	sub := s.hub.subscribe()
	defer s.hub.unsubscribe(sub)
	// write sends b within WriteTimeout: a client that stops reading fills the
	// socket buffers, and without a deadline Write would then block forever.
	write := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	w.WriteHeader(http.StatusOK)
	if !write([]byte("retry: 2000\n: connected\n\n")) {
		return
	}
	tick := time.NewTicker(s.opts.KeepAlive)
	defer tick.Stop()
	for {
		var buf bytes.Buffer
		select {
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		case <-tick.C:
			buf.WriteString(": keep-alive\n\n")
		case <-sub.wake:
			for _, e := range sub.take() {
				// json.Marshal never emits a raw newline, so one data line holds it all.
				fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", e.Name, e.Data)
			}
		}
		if !write(buf.Bytes()) {
			return
		}
	}
}

// serveStatic serves the UI bundle: the page is revalidated on every load, the
// content-hashed /assets/* files are cached for good.
func (s *Server) serveStatic(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	data, err := fs.ReadFile(s.opts.Assets, name)
	if err != nil {
		if name == "index.html" {
			writeHTML(w, http.StatusServiceUnavailable, notBuiltPage)
			return
		}
		http.NotFound(w, r)
		return
	}
	hd := w.Header()
	page := path.Ext(name) == ".html"
	switch {
	case strings.HasPrefix(name, "assets/"):
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	case page:
		// The page's URL carries the token the first time: keep it out of the cache.
		hd.Set("Cache-Control", "no-store")
	default:
		hd.Set("Cache-Control", "no-cache")
	}
	if page {
		securityHeaders(hd)
	}
	hd.Set("X-Content-Type-Options", "nosniff")
	// A client that stops reading (the bundle is a few MB) is dropped after a while.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}

// securityHeaders keep the page out of other sites' frames and its scripts to its
// own origin (ServeHTTP sets Referrer-Policy on every answer).
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	h.Set("X-Frame-Options", "DENY")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, FormatError(fmt.Errorf("encode response: %w", err)))
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
	_, _ = w.Write([]byte("\n"))
}

func writeError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func writeHTML(w http.ResponseWriter, status int, page string) {
	securityHeaders(w.Header())
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, page)
}

const notBuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Logbook: UI not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 4em auto; line-height: 1.5">
<h1>Logbook</h1>
<p>The UI bundle is not built: run <code>make build</code> (it runs <code>npm run build</code> in
<code>frontend/</code>), then start the server again.</p>
</body></html>
`

// ListenAndServe serves s on ln until ctx is cancelled, then shuts down gracefully
// (open event streams are ended first). Requests still running after
// ShutdownTimeout have their connections closed, so a stuck client never keeps
// the process alive.
func ListenAndServe(ctx context.Context, ln net.Listener, s *Server) error {
	// No ReadTimeout or WriteTimeout: both would cut the event stream (and a
	// ReadTimeout cancels any handler running past it). Headers are bounded here,
	// bodies by BodyTimeout (ServeHTTP), answers and stream writes by WriteTimeout,
	// idle keep-alive connections by IdleTimeout.
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	hs.RegisterOnShutdown(s.Close)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		s.log.Warn("requests still running at shutdown; closing their connections", "timeout", s.opts.ShutdownTimeout, "err", err)
		_ = hs.Close()
	}
	if e := <-errc; !errors.Is(e, http.ErrServerClosed) {
		return e
	}
	return nil
}
