// Package archivesync joins the archive to a sync remote (sync/repo): it
// pushes every archived session's original bytes (the logical JSONL that
// `logbook export` writes) and pulls other machines' sessions into files the
// dsh importer reads, so a pulling machine gets the same verdicts and the
// same byte-identical export. The SQLite file and the Bleve index never
// travel.
//
// What lives in the data directory:
//
//	sync.json                      Config: the remote and this machine's id
//	sync.key                       the archive key (age X25519), mode 0600
//	sync/state.json                State: what was pushed and pulled, conflicts
//	sync/in/<mtag>/<sid>/session.jsonl        a pulled session, imported from here
//	sync/conflicts/<mtag>/<sid>/session.jsonl a pulled version that diverged, kept, not imported
package archivesync

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/logbook/logbook/internal/atomicfile"
	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/fsremote"
	"github.com/logbook/logbook/sync/s3remote"
)

// ErrNotConfigured means `logbook sync init` has not run here.
var ErrNotConfigured = errors.New("sync is not set up in this data directory: run `logbook sync init --remote URL --passphrase-file FILE` (the same command on every machine)")

// ErrBusy means another sync of this data directory is running (Lock).
var ErrBusy = errors.New("another `logbook sync` of this data directory is running; try again when it is done")

// ErrConfigured means init or join found this data directory already set up.
var ErrConfigured = errors.New("sync is already set up in this data directory (sync.json and sync.key exist)")

// Config is DATA/sync.json. It holds no secret: S3 credentials come from
// the environment, the key from sync.key.
type Config struct {
	// Remote is a folder path or s3://bucket/prefix?endpoint=…, as given
	// (a file:// URL is kept as its path).
	Remote string `json:"remote"`
	// More are further remotes (`logbook sync add-remote`), each synced in
	// turn after Remote with the same key.
	More []string `json:"more_remotes,omitempty"`
	// Machine names this machine in its manifest (encrypted on the remote).
	Machine string    `json:"machine"`
	Created time.Time `json:"created"`
}

// Remotes are every remote of the config, the first one first.
func (c Config) Remotes() []string { return append([]string{c.Remote}, c.More...) }

// Paths are the sync files of one data directory. Sub, when set, selects
// the work folder of a remote added with add-remote (ForRemote); the
// config and key are shared.
type Paths struct {
	Dir string
	Sub string
}

// Config is DATA/sync.json.
func (p Paths) Config() string { return filepath.Join(p.Dir, "sync.json") }

// Key is DATA/sync.key, the archive key.
func (p Paths) Key() string { return filepath.Join(p.Dir, "sync.key") }

// Work is the sync work folder of the first remote (DATA/sync) or of an
// added one (DATA/sync/remotes/<Sub>).
func (p Paths) Work() string {
	if p.Sub != "" {
		return filepath.Join(p.Dir, "sync", "remotes", p.Sub)
	}
	return filepath.Join(p.Dir, "sync")
}

// Status is DATA/sync/status.json, the last sync's outcome for the UI.
func (p Paths) Status() string { return filepath.Join(p.Dir, "sync", "status.json") }

// ForRemote is the Paths whose work folder holds remote i's state: what was
// pushed there and pulled from there is per remote, since the pieces an
// entry lists exist only where they were pushed.
func (p Paths) ForRemote(c Config, i int) Paths {
	if i == 0 {
		return Paths{Dir: p.Dir}
	}
	sum := sha256.Sum256([]byte(c.Remotes()[i]))
	return Paths{Dir: p.Dir, Sub: hex.EncodeToString(sum[:6])}
}

// State is the state file of the work folder.
func (p Paths) State() string { return filepath.Join(p.Work(), "state.json") }

// In holds pulled sessions, imported from there.
func (p Paths) In() string { return filepath.Join(p.Work(), "in") }

// Conflicts holds pulled versions that diverged, kept and not imported.
func (p Paths) Conflicts() string { return filepath.Join(p.Work(), "conflicts") }

// NewMachineID is the host name (for people reading status) plus random
// bytes, so two machines with one host name stay apart.
func NewMachineID() string {
	h, _ := os.Hostname()
	h = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return -1
	}, h)
	if h == "" {
		h = "machine"
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return h + "-" + hex.EncodeToString(b[:])
}

// LoadConfig reads sync.json; ErrNotConfigured when it is missing.
func LoadConfig(p Paths) (Config, error) {
	var c Config
	err := atomicfile.ReadJSON(p.Config(), &c)
	if errors.Is(err, fs.ErrNotExist) {
		return c, ErrNotConfigured
	}
	if err != nil {
		return c, err
	}
	if c.Remote == "" || c.Machine == "" {
		return c, fmt.Errorf("%s: no remote or machine", p.Config())
	}
	return c, nil
}

// SaveConfig writes sync.json atomically.
func SaveConfig(p Paths, c Config) error { return atomicfile.WriteJSON(p.Config(), c) }

// OpenRemote opens a remote spec: a folder path or file:///path, or
// s3://bucket[/prefix]?endpoint=host:port[&insecure=1][&path-style=1][&region=R]
// with credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
// AWS_SESSION_TOKEN. The remote is wrapped in sync.Retry. create makes the
// folder or bucket if missing (init does; the others expect it).
func OpenRemote(spec string, create func(arcsync.Remote) error) (arcsync.Remote, error) {
	var r arcsync.Remote
	if strings.HasPrefix(spec, "s3://") {
		s3, err := openS3(spec)
		if err != nil {
			return nil, err
		}
		r = s3
	} else {
		spec, err := folderPath(spec)
		if err != nil {
			return nil, err
		}
		if spec == "" {
			return nil, errors.New("no remote: give a folder or s3://bucket/prefix?endpoint=host")
		}
		abs, err := filepath.Abs(spec)
		if err != nil {
			return nil, err
		}
		r = fsremote.New(abs)
	}
	if create != nil {
		if err := create(r); err != nil {
			return nil, err
		}
	}
	return arcsync.NewRetry(r), nil
}

func openS3(spec string) (*s3remote.Remote, error) {
	u, err := url.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("remote %q: %w", spec, err)
	}
	q := u.Query()
	cfg := s3remote.Config{
		Endpoint:     q.Get("endpoint"),
		Bucket:       u.Host,
		Prefix:       strings.Trim(u.Path, "/"),
		AccessKey:    os.Getenv("AWS_ACCESS_KEY_ID"),
		SecretKey:    os.Getenv("AWS_SECRET_ACCESS_KEY"),
		SessionToken: os.Getenv("AWS_SESSION_TOKEN"),
		Region:       q.Get("region"),
		Insecure:     truthy(q.Get("insecure")),
		PathStyle:    truthy(q.Get("path-style")),
	}
	if cfg.Endpoint == "" {
		cfg.Endpoint = "s3.amazonaws.com"
	}
	if cfg.Bucket == "" {
		return nil, fmt.Errorf("remote %q: no bucket (s3://bucket/prefix?endpoint=host)", spec)
	}
	if cfg.AccessKey == "" || cfg.SecretKey == "" {
		return nil, fmt.Errorf("remote %q: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", spec)
	}
	return s3remote.New(cfg)
}

// EnsureRemote creates a folder remote's folder or an S3 bucket.
func EnsureRemote(ctx context.Context, spec string) func(arcsync.Remote) error {
	return func(r arcsync.Remote) error {
		if s3, ok := r.(*s3remote.Remote); ok {
			return s3.EnsureBucket(ctx)
		}
		if !strings.HasPrefix(spec, "s3://") {
			dir, err := folderPath(spec)
			if err != nil {
				return err
			}
			return os.MkdirAll(dir, 0o700)
		}
		return nil
	}
}

// folderPath is the folder of a folder remote: a file:// URL's path, or
// the spec itself. Other URL schemes are refused by name.
func folderPath(spec string) (string, error) {
	if strings.HasPrefix(spec, "file://") {
		u, err := url.Parse(spec)
		if err != nil {
			return "", fmt.Errorf("remote %q: %w", spec, err)
		}
		if u.Host != "" && u.Host != "localhost" {
			return "", fmt.Errorf("remote %q: a file:// URL names a folder on this machine (file:///path), not on host %q", spec, u.Host)
		}
		if u.Path == "" {
			return "", fmt.Errorf("remote %q: no folder (file:///path)", spec)
		}
		return u.Path, nil
	}
	if i := strings.Index(spec, "://"); i > 0 && !strings.ContainsAny(spec[:i], "/\\") {
		return "", fmt.Errorf("remote %q: scheme %q is not supported: use file:///path or s3://bucket/prefix?endpoint=host:port", spec, spec[:i])
	}
	return spec, nil
}

func truthy(s string) bool { return s == "1" || s == "true" || s == "yes" }
