package app

// A browser's export download. In the desktop window Export writes the file the
// person chose; a browser on `logbook serve` has no such dialog, so Export builds
// the export into a temporary file under DATA/exports and returns where to fetch
// it: GET /api/download/{id}?key=K, answered once with the file streamed as an
// attachment (Content-Disposition), then removed. One never fetched is removed
// after downloadTTL. The file travels as itself, never held whole in memory
// (before, a bundle came back base64-encoded in the JSON answer: 1.33 times its
// size, and whole in memory several times over).
//
// The key: the GET is a navigation (only that gives the browser's own download,
// streamed to disk with its progress), which cannot carry the X-Logbook-Token
// header, and the run's token must not ride in its URL (a browser keeps download
// URLs in its history). So each download has its own secret key, handed only to
// the caller of Export (a token-authenticated call) and good for one GET of that
// download: without it, or with another, the GET gets 401.

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// downloadPrefix is the path of a download; its id follows.
const downloadPrefix = "/api/download/"

// downloadTTL is how long a finished export waits to be fetched.
const downloadTTL = 10 * time.Minute

// downloadsDir holds the exports waiting, under the data directory.
const downloadsDir = "exports"

// downloadChunk is what one write of a download sends, each under WriteTimeout.
const downloadChunk = 256 << 10

// downloads are the finished exports waiting for their one GET. The zero value
// is ready: the data directory comes with each add.
type downloads struct {
	mu  sync.Mutex
	m   map[string]*download
	ttl time.Duration // downloadTTL when 0 (tests shorten it)
}

// download is one export waiting, or its tombstone once fetched or expired (so a
// second GET says it is gone, 410, rather than unknown).
type download struct {
	key   [sha256.Size]byte // SHA-256 of the key: the secret itself is kept nowhere
	path  string            // "" once fetched or expired
	name  string
	mime  string
	size  int64
	timer *time.Timer
}

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b)
}

// add builds an export through write into a new file under dataDir and keeps
// it for one GET. It returns the URL to fetch (relative to the page) and the
// file's size; a failed write leaves no file.
func (d *downloads) add(dataDir, name, mimeType string, write func(io.Writer) error) (string, int64, error) {
	if dataDir == "" {
		dataDir = os.TempDir() // a bare app without a data directory (tests)
	}
	f, err := d.create(filepath.Join(dataDir, downloadsDir))
	if err != nil {
		// A data directory this process cannot write (a read-only mount, a backup
		// being browsed) still serves exports: they wait in the system's
		// temporary directory instead.
		var terr error
		if f, terr = d.create(filepath.Join(os.TempDir(), "logbook-"+downloadsDir)); terr != nil {
			return "", 0, err
		}
	}
	n, err := writeClose(f, write)
	if err != nil {
		_ = os.Remove(f.Name())
		return "", 0, err
	}
	id, key := randomHex(16), randomHex(32)
	dl := &download{key: sha256.Sum256([]byte(key)), path: f.Name(), name: name, mime: mimeType, size: n}
	ttl := d.ttl
	if ttl <= 0 {
		ttl = downloadTTL
	}
	d.mu.Lock()
	if d.m == nil {
		d.m = map[string]*download{}
	}
	d.m[id] = dl
	dl.timer = time.AfterFunc(ttl, func() { d.expire(id, ttl) })
	d.mu.Unlock()
	return strings.TrimPrefix(downloadPrefix, "/") + id + "?key=" + key, n, nil
}

// create makes a new export file in dir, first removing what an earlier run left
// there (sweep).
func (d *downloads) create(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	d.sweep(dir)
	return os.CreateTemp(dir, "export-*")
}

// expire removes a download never fetched, and forgets its tombstone one ttl
// later.
func (d *downloads) expire(id string, ttl time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	dl := d.m[id]
	switch {
	case dl == nil:
	case dl.path != "":
		_ = os.Remove(dl.path)
		dl.path = ""
		dl.timer = time.AfterFunc(ttl, func() { d.expire(id, ttl) })
	default:
		delete(d.m, id)
	}
}

// take claims download id with key for its one GET: the download and 200, or
// nil and 401 (no key, or not its key), 404 (no such download) or 410 (fetched
// already, or expired). The caller removes the file once sent.
func (d *downloads) take(id, key string) (download, int) {
	if key == "" {
		return download{}, http.StatusUnauthorized
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	dl := d.m[id]
	switch {
	case dl == nil:
		return download{}, http.StatusNotFound
	case subtle.ConstantTimeCompare(dl.key[:], sum(key)) != 1:
		return download{}, http.StatusUnauthorized
	case dl.path == "":
		return download{}, http.StatusGone
	}
	out := *dl
	dl.path = ""
	return out, http.StatusOK
}

func sum(key string) []byte { s := sha256.Sum256([]byte(key)); return s[:] }

// sweep removes what an earlier run left in dir (a process that stopped with
// downloads waiting): files older than the longest a download waits, so a
// download of another process on the same data directory is left alone.
func (d *downloads) sweep(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), "export-") && time.Since(fi.ModTime()) > downloadTTL {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// close removes every download still waiting (the server is stopping).
func (d *downloads) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for id, dl := range d.m {
		if dl.timer != nil {
			dl.timer.Stop()
		}
		if dl.path != "" {
			_ = os.Remove(dl.path)
		}
		delete(d.m, id)
	}
}

// serveDownload is GET /api/download/{id}?key=K: the export streamed as an
// attachment, once (see take for the refusals), then removed.
func (s *Server) serveDownload(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		// A HEAD (which the GET pattern also routes here) must not spend the one GET.
		w.Header().Set("Allow", "GET")
		writeError(w, http.StatusMethodNotAllowed, "a download is fetched with GET, once")
		return
	}
	dl, status := s.app.downloads.take(r.PathValue("id"), r.URL.Query().Get("key"))
	switch status {
	case http.StatusUnauthorized:
		writeError(w, status, "This download needs its key: export again from the Export dialog.")
		return
	case http.StatusNotFound:
		writeError(w, status, "No such download: export again from the Export dialog.")
		return
	case http.StatusGone:
		writeError(w, status, fmt.Sprintf("This download was fetched already or waited more than %v: export again from the Export dialog.", downloadTTL))
		return
	}
	defer func() { _ = os.Remove(dl.path) }()
	f, err := os.Open(dl.path)
	if err != nil {
		s.log.Warn("export download lost", "err", err)
		writeError(w, http.StatusGone, "This download is gone: export again from the Export dialog.")
		return
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", dl.mime)
	h.Set("Content-Length", fmt.Sprint(dl.size))
	h.Set("Content-Disposition", attachment(dl.name))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	// Each chunk gets WriteTimeout: a browser saving a large file keeps going, one
	// that stops reading is dropped.
	rc := http.NewResponseController(w)
	buf := make([]byte, downloadChunk)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
			if _, werr := w.Write(buf[:n]); werr != nil {
				return // the browser went; the download is spent
			}
		}
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			s.log.Warn("export download read failed", "err", err)
			return
		}
	}
}

// attachment is the Content-Disposition of a download named name (RFC 2231
// encoded by mime when it is not plain ASCII).
func attachment(name string) string {
	if v := mime.FormatMediaType("attachment", map[string]string{"filename": name}); v != "" {
		return v
	}
	return "attachment"
}
