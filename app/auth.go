package app

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"time"
)

// The browser's credential is the per-run token, and it never rides a cookie:
// cookies ignore ports, so a cookie for 127.0.0.1 goes to every server on any
// port of this machine, including one a crafted session links to. Instead:
//
//   - `logbook serve` prints http://127.0.0.1:PORT/?token=T; the page takes T
//     from its URL, keeps it in sessionStorage (per origin, port included, and
//     per tab) and replaces the URL with one without it, so it leaves the
//     address bar and the history; Referrer-Policy: no-referrer keeps it out of
//     Referer headers meanwhile;
//   - every API call sends it in the X-Logbook-Token header, which a browser
//     sends to no other server;
//   - the event stream (EventSource cannot set headers) carries it in its query,
//     a URL only the page's own script ever requests.
//
// The page and its scripts hold no data, so they are served without the token;
// a wrong ?token= on the page's link is still refused at once, so a stale link
// says so instead of loading a page that cannot sign in.

// tokenHeader is the header API calls carry the token in.
const tokenHeader = "X-Logbook-Token"

// ServeHTTP applies the protections, then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Whatever this answer leads to (a link, an image, a redirect) names no URL of
	// ours to another server.
	w.Header().Set("Referrer-Policy", "no-referrer")
	if r.ContentLength != 0 { // a body, of known length or chunked (-1)
		// The server has no ReadTimeout (it would cut the event stream): a body
		// that stalls is bounded here, whoever reads it (serveCall, or net/http
		// discarding what a handler left unread).
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.opts.BodyTimeout))
	}
	if !s.opts.AllowRemote && !s.hosts[strings.ToLower(r.Host)] {
		// A name other than ours that resolves to us: DNS rebinding, or a mistake.
		s.refuse(w, r, http.StatusMisdirectedRequest, "misdirected request: this server answers only to "+s.opts.Addr)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !strings.EqualFold(o, "http://"+r.Host) {
		s.refuse(w, r, http.StatusForbidden, "forbidden: cross-origin request")
		return
	}
	if crossSite(r) {
		// A no-cors GET carries no Origin: only the browser's own label tells a
		// request from a page on another port or site apart.
		s.refuse(w, r, http.StatusForbidden, "forbidden: cross-site request")
		return
	}
	if c, err := r.Cookie(s.legacy); err == nil && c.Value != "" {
		// Earlier versions kept the token in this cookie, which every port of the
		// host received: expire it.
		http.SetCookie(w, &http.Cookie{Name: s.legacy, Value: "", Path: "/", MaxAge: -1})
	}
	if isMachinePath(r.URL.Path) {
		// Tools and scripts: an API key, checked by the endpoint's machine wrapper
		// (apikeys.go); the browser's token opens nothing here.
	} else if strings.HasPrefix(r.URL.Path, "/api/") {
		if !s.authorized(r) {
			s.refuse(w, r, http.StatusUnauthorized, "Not signed in: open the link `logbook serve` printed (it carries the access token).")
			return
		}
	} else if tok := r.URL.Query().Get("token"); tok != "" && !s.validToken(tok) {
		writeHTML(w, http.StatusUnauthorized, tokenPage)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// refuse answers a request turned away before its body was read: API paths get
// the JSON error the UI reads, others plain text. Every check before it reads
// headers only, so no body is read for a request refused. A request with a body
// also has its connection closed at once: otherwise net/http reads up to 256 KB
// of the unread body, before answering (to reuse the connection) and again after
// (to close the body), and a client that stalls mid-body would hold the
// connection, with no answer, until the body deadline.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	dropBody(w, r)
	if strings.HasPrefix(r.URL.Path, "/api/") {
		writeError(w, status, msg)
		return
	}
	http.Error(w, msg, status)
}

// dropBody closes the connection of a refused request with a body once answered,
// and ends any read of that body now (see refuse): it is never wanted.
func dropBody(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
		_ = http.NewResponseController(w).SetReadDeadline(time.Now())
	}
}

// crossSite reports whether a browser labelled r as coming from another site, or
// another origin of this site, other than by a top-level navigation (following a
// link to the UI is harmless: the page that linked cannot read the answer).
func crossSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
	default: // same-origin, none (typed or opened from the terminal), or not a browser
		return false
	}
	nav := r.Header.Get("Sec-Fetch-Mode") == "navigate" && (r.Method == http.MethodGet || r.Method == http.MethodHead)
	return !nav || strings.HasPrefix(r.URL.Path, "/api/")
}

// authorized reports whether an API request carries the token: in the header,
// or, for the event stream only, in the query; an export's download is let
// through to check its own key. It reads headers and the URL
// only, never the body, so a refused request costs no read.
func (s *Server) authorized(r *http.Request) bool {
	if h := r.Header.Get(tokenHeader); h != "" {
		return s.validToken(h)
	}
	if r.URL.Path == "/api/events" && r.Method == http.MethodGet {
		return s.validToken(r.URL.Query().Get("token"))
	}
	if strings.HasPrefix(r.URL.Path, downloadPrefix) && r.Method == http.MethodGet {
		return true // a navigation, with the download's own one-time key instead (download.go)
	}
	return false
}

func (s *Server) validToken(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.opts.Token)) == 1
}

const tokenPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Logbook: sign-in link needed</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 4em auto; line-height: 1.5">
<h1>Logbook</h1>
<p>This link's access token is not the one of the running <code>logbook serve</code>: it was
restarted, or the link is an old one. Open the link it printed in its terminal
(<code>http://127.0.0.1:PORT/?token=…</code>). The token keeps other web pages, other servers
and other users of this machine out of your archive.</p>
</body></html>
`
