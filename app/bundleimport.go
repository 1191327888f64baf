package app

// Importing Logbook bundles (.logbook, see export/bundle.go). A bundle under an
// import root is imported by every import of the roots (runImport), as
// `logbook import` does with the folders it walks; export/bundleimport.go is the
// one implementation both call. A person can also import one bundle once: the
// desktop window asks for the file (ImportBundleFile), a browser on `logbook
// serve` uploads it (Server.serveBundleUpload), and the upload is kept in
// DATA/imported-bundles/uploads like the bundles the CLI unpacks there.

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/export"
)

// defaultMaxBundleUpload bounds a browser's bundle upload when
// Deps.MaxBundleUpload is 0.
const defaultMaxBundleUpload = 1 << 30

// uploadTimeout bounds how long a bundle upload's body may take to arrive.
const uploadTimeout = 10 * time.Minute

// uploadsDir is where uploaded bundles are kept, under export.BundlesDir.
const uploadsDir = "uploads"

// opener is the desktop window's open-file dialog (the Import view's "Import a
// bundle…").
type opener interface {
	// OpenFile asks for a file to open; "" when the person cancels.
	OpenFile(title string, patterns string) (string, error)
}

// unpackBundles replaces the bundles among paths, and adds those under its
// folders, by the sessions they hold, unpacked into the data directory. It
// returns what the walk found of the paths to import (export.DiscoverBundles),
// nil when it did not walk them.
func (a *App) unpackBundles(ctx context.Context, paths []string) ([]string, *archive.Discovered, []*export.ImportedBundle, error) {
	if a.deps.DataDir == "" {
		return paths, nil, nil, nil // no data directory to unpack into (a bare test app)
	}
	return export.DiscoverBundles(ctx, a.deps.DataDir, paths)
}

// followSource is the live follower's Source: a bundle (named *.logbook) is
// imported whole, anything else as the archive's formats say (archive.SourceOf).
func followSource(p string) (string, bool) {
	if strings.HasSuffix(strings.ToLower(p), ".logbook") {
		return p, export.LooksLikeBundle(p)
	}
	return archive.SourceOf(p)
}

// followBundles unpacks the bundles among the follower's paths, replacing
// them by the sessions they hold. Only the bundle files are handed to
// export.UnpackBundles: a folder among paths (an OpenHands conversation) is not
// walked for bundles on every change, the roots' walk finds those.
func (a *App) followBundles(ctx context.Context, paths []string) ([]string, []*export.ImportedBundle, error) {
	var files, rest []string
	for _, p := range paths {
		switch {
		case !strings.HasSuffix(strings.ToLower(p), ".logbook") || !export.LooksLikeBundle(p):
			rest = append(rest, p)
		case cutShort(p):
			// Still being copied in: salvaging each partial state would keep a
			// cut-<hash> folder of each. Its next change brings it back; a bundle
			// that stays cut short is salvaged by an import (start-up, Import).
			a.log.Info("live follow: a bundle that is not whole yet is left for now", "path", p)
		default:
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return rest, nil, nil
	}
	unpacked, _, bundles, err := a.unpackBundles(ctx, files)
	if err != nil {
		return nil, nil, fmt.Errorf("unpack bundles: %w", err)
	}
	return append(rest, unpacked...), bundles, nil
}

// cutShort reports whether p is a zip file without its central directory yet,
// as a bundle still being written is. Any other error is left to the import,
// which reports it.
func cutShort(p string) bool {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return errors.Is(err, zip.ErrFormat)
	}
	_ = zr.Close()
	return false
}

// ImportBundleFile asks, in the desktop window, for a bundle and imports it once,
// as StartImport does the roots. It returns the chosen file, "" when the person
// cancelled. A browser uploads the bundle instead (POST /api/upload/bundle).
func (a *App) ImportBundleFile() (string, error) {
	o, ok := a.events.window().(opener)
	if !ok {
		return "", invalid("choosing a file needs the desktop window; in a browser, upload the bundle")
	}
	p, err := o.OpenFile("Import a Logbook bundle", "*.logbook;*.zip")
	if err != nil || p == "" {
		return "", err
	}
	return p, a.importBundle(p)
}

// importBundle imports the bundle at path once, in the background, with
// progress and outcome as StartImport's (the run's Roots name the bundle).
func (a *App) importBundle(path string) error {
	if strings.TrimSpace(path) == "" {
		return invalid("no bundle named")
	}
	if !export.LooksLikeBundle(path) {
		if _, err := os.Stat(path); err != nil {
			return invalid(fmt.Sprintf("cannot read %s: %v", path, err))
		}
		return invalid(fmt.Sprintf("%s is not a Logbook bundle (a .logbook file, or a zip with a Logbook manifest)", path))
	}
	roots := []string{path}
	if err := a.beginImport(roots, nil); err != nil {
		return err
	}
	go func() { a.finishImport(a.importRoots(a.ctx, roots)) }()
	return nil
}

// saveBundleUpload writes an uploaded bundle (at most limit bytes of r) into
// DATA/imported-bundles/uploads, named by its checksum so the same bundle
// uploaded twice is one file, and returns its path, and whether this upload
// made that file (false when the same bundle was kept already). What is no zip
// at all is refused before anything is kept.
func (a *App) saveBundleUpload(r io.Reader, name string) (string, bool, error) {
	if a.deps.DataDir == "" {
		return "", false, errors.New("no data directory to keep the bundle in")
	}
	dir := filepath.Join(a.deps.DataDir, export.BundlesDir, uploadsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false, err
	}
	f, err := os.CreateTemp(dir, ".upload-*")
	if err != nil {
		return "", false, err
	}
	defer func() { _ = os.Remove(f.Name()) }() // gone once renamed
	h := sha256.New()
	head := make([]byte, 4)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		f.Close()
		return "", false, err // the upload broke off: not a verdict on the file
	}
	if !bytes.Equal(head[:n], []byte("PK\x03\x04")) {
		f.Close()
		return "", false, invalid(fmt.Sprintf("%s is not a Logbook bundle: a bundle is a zip file (it starts with PK), this file does not", displayName(name)))
	}
	if _, err := io.Copy(io.MultiWriter(f, h), io.MultiReader(bytes.NewReader(head), r)); err != nil {
		f.Close()
		return "", false, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", false, err
	}
	if err := f.Close(); err != nil {
		return "", false, err
	}
	p := filepath.Join(dir, hex.EncodeToString(h.Sum(nil))[:16]+".logbook")
	_, err = os.Stat(p)
	made := errors.Is(err, fs.ErrNotExist)
	if err := os.Rename(f.Name(), p); err != nil {
		return "", false, err
	}
	return p, made, nil
}

// importUpload keeps an uploaded bundle (saveBundleUpload) and imports it once
// (importBundle). A bundle whose import is refused (one began while it
// arrived) is not kept: the file goes again, unless an earlier upload of the
// same bundle had kept it.
func (a *App) importUpload(r io.Reader, name string) (string, error) {
	p, made, err := a.saveBundleUpload(r, name)
	if err != nil {
		return "", err
	}
	if err := a.importBundle(p); err != nil {
		if made {
			_ = os.Remove(p)
		}
		return "", err
	}
	return p, nil
}

// importRunning reports whether an import holds the one import slot.
func (a *App) importRunning() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.importing
}

// displayName is an uploaded file's name as a message shows it.
func displayName(name string) string {
	name = filepath.Base(strings.TrimSpace(name))
	if name == "" || name == "." || name == string(filepath.Separator) {
		return "the uploaded file"
	}
	return fmt.Sprintf("%q", name)
}

// serveBundleUpload takes a browser's bundle upload (the body is the file, its
// name in the X-Logbook-Filename header), keeps it and imports it once. A body
// past the limit gets 413, what is no bundle 400, an import already running 409
// (and nothing kept).
func (s *Server) serveBundleUpload(w http.ResponseWriter, r *http.Request) {
	limit := s.app.deps.MaxBundleUpload
	if limit <= 0 {
		limit = defaultMaxBundleUpload
	}
	tooBig := fmt.Sprintf("the bundle is larger than the %d MB a browser may upload; import it with `logbook import FILE.logbook` instead", limit>>20)
	if r.ContentLength > limit {
		s.refuse(w, r, http.StatusRequestEntityTooLarge, tooBig)
		return
	}
	if s.app.importRunning() {
		// Refused before a byte of the body is read or kept (importUpload
		// removes the file of one refused after it arrived).
		s.refuse(w, r, http.StatusConflict, "an import is already running: upload the bundle once it is done")
		return
	}
	// A large upload may take longer than BodyTimeout: it gets uploadTimeout.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(uploadTimeout))
	name, err := url.PathUnescape(r.Header.Get("X-Logbook-Filename")) // the page encodes it (a header is Latin-1)
	if err != nil {
		name = ""
	}
	p, err := s.app.importUpload(http.MaxBytesReader(w, r.Body, limit), name)
	if err != nil {
		var big *http.MaxBytesError
		var in *inputError
		switch {
		case errors.As(err, &big):
			s.refuse(w, r, http.StatusRequestEntityTooLarge, tooBig)
		case errors.As(err, &in) && in.conflict:
			writeError(w, http.StatusConflict, in.Error())
		case errors.As(err, &in):
			writeError(w, http.StatusBadRequest, in.Error())
		default:
			s.log.Warn("bundle upload failed", "err", err)
			writeError(w, http.StatusInternalServerError, "the bundle could not be kept: "+err.Error())
		}
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"path": p})
}

// bundleReportsInto adds what bundles did not give to rep, and returns what
// each gave, as `logbook import` says it (export.ReportBundles), one line each.
func bundleReportsInto(rep *archive.ImportReport, bundles []*export.ImportedBundle) []string {
	if len(bundles) == 0 {
		return nil
	}
	export.AddBundleReports(rep, bundles)
	var buf bytes.Buffer
	export.ReportBundles(&buf, bundles, rep)
	return strings.Split(strings.TrimSpace(buf.String()), "\n")
}
