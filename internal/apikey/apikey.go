// Package apikey keeps the API keys that tools and scripts present, in the
// X-Session-API-Key header, to Logbook's machine-to-machine endpoints (the
// OpenHands-compatible events API, the webhook). It is shared by the CLI
// (`logbook apikey`) and the app (the settings view, the HTTP middleware), which
// is why it is a package of its own and not part of app: nothing imports app.
//
// A key is 32 random bytes, shown once as "lbk_" and their base64url text. Only
// its SHA-256 is kept, in DATA/apikeys.json (mode 0600, replaced atomically). A
// fast hash is right here, unlike for passwords: a key has 256 bits of entropy,
// so no dictionary or brute force gets anywhere near it, and a slow hash (bcrypt,
// argon2) would only make every authenticated request slow. Keys are checked by
// comparing SHA-256 hashes in constant time, against every stored key.
//
// Several processes use the file at once (a running `logbook serve` and the CLI
// creating or revoking a key): every change is a read-modify-write under an flock
// on DATA/apikeys.json.lock, and a Store re-reads the file when it was replaced,
// and at least every second, so a key created or revoked by another process works
// or stops working at once, without a restart.
package apikey

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/logbook/logbook/internal/atomicfile"
)

// Prefix starts every key, so a key pasted into a chat, a log or a repository is
// recognisable as a Logbook key (and by secret scanners).
const Prefix = "lbk_"

// FileName is the store's file in the data directory.
const FileName = "apikeys.json"

// fileVersion is the version of the file's format this package writes.
const fileVersion = 1

// Errors of the store.
var (
	// ErrNotFound is a key name that is not in the store.
	ErrNotFound = errors.New("apikey: no such key")
	// ErrExists is a new key's name that another key already has.
	ErrExists = errors.New("apikey: a key with this name already exists")
	// ErrInvalid is a presented key that matches no stored key (unknown or revoked).
	ErrInvalid = errors.New("apikey: invalid key")
	// ErrBadName is a key name that is not 1 to 64 letters, digits, '.', '_' or '-'.
	ErrBadName = errors.New("apikey: a key name is 1 to 64 letters, digits, '.', '_' or '-'")
)

// validName keeps names safe to print in a terminal and to pass as one argument.
var validName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Info describes a stored key; it never holds the key.
type Info struct {
	Name string `json:"name"`
	// Fingerprint is the first 12 hex digits of the key's SHA-256, enough to tell
	// keys apart and to check which one a script holds
	// (printf %s "$KEY" | sha256sum | cut -c1-12), and nothing to attack.
	Fingerprint string     `json:"fingerprint"`
	Created     time.Time  `json:"created"`
	LastUsed    *time.Time `json:"last_used"` // nil: never used; recorded to the minute (Store.UseEvery)
}

// NewKey is a key just created: the only time the key itself is known.
type NewKey struct {
	Key  string `json:"key"`
	Info Info   `json:"info"`
}

// record is one key in the file.
type record struct {
	Name     string     `json:"name"`
	SHA256   string     `json:"sha256"` // hex
	Created  time.Time  `json:"created"`
	LastUsed *time.Time `json:"last_used,omitempty"`
}

// file is the JSON document of apikeys.json.
type file struct {
	Version int      `json:"version"`
	Keys    []record `json:"keys"`
}

// Store is the API keys of one data directory. It is safe for concurrent use, by
// goroutines and by processes.
type Store struct {
	// Path is the file (DATA/apikeys.json).
	Path string
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// UseEvery is how often a key's last use is written to the file (a request
	// within it of the last one recorded writes nothing); a minute when 0.
	UseEvery time.Duration
	// Logger gets the failures to record a use, which never refuse a request
	// (a read-only data directory); slog.Default() when nil.
	Logger *slog.Logger

	mu      sync.Mutex
	keys    []record
	hashes  [][sha256.Size]byte // keys' hashes, decoded
	stat    os.FileInfo         // of the file as last read; nil when it did not exist
	readAt  time.Time           // when it was last read
	loaded  bool
	touched map[string]time.Time // last use recorded by this process, by name
}

// maxStale is how long a Store trusts its copy of the file when the file looks
// unchanged: a revoked key stops working within it even on a file system whose
// times are too coarse to show a quick replacement.
const maxStale = time.Second

// New returns the store kept in path.
func New(path string) *Store { return &Store{Path: path} }

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Store) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// hash is a key's SHA-256, which the file keeps (in hex).
func hash(key string) [sha256.Size]byte { return sha256.Sum256([]byte(key)) }

func (r record) info() Info {
	fp := r.SHA256
	if len(fp) > 12 {
		fp = fp[:12]
	}
	return Info{Name: r.Name, Fingerprint: fp, Created: r.Created, LastUsed: r.LastUsed}
}

// List returns the stored keys, oldest first.
func (s *Store) List() ([]Info, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(true); err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(s.keys))
	for _, r := range s.keys {
		out = append(out, r.info())
	}
	return out, nil
}

// Any reports whether at least one key exists.
func (s *Store) Any() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(true); err != nil {
		return false, err
	}
	return len(s.keys) > 0, nil
}

// Create makes a key named name ("" picks key-1, key-2, …) and returns it: the
// only time the key is known. The file keeps its hash.
func (s *Store) Create(name string) (NewKey, error) {
	if name != "" && !validName.MatchString(name) {
		return NewKey{}, fmt.Errorf("%q: %w", name, ErrBadName)
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand panics instead)
	key := Prefix + base64.RawURLEncoding.EncodeToString(b)
	h := hash(key)
	r := record{Name: name, SHA256: hex.EncodeToString(h[:]), Created: s.now().UTC().Truncate(time.Second)}
	err := s.update(func(f *file) error {
		if r.Name == "" {
			r.Name = freeName(f.Keys)
		}
		for _, k := range f.Keys {
			if k.Name == r.Name {
				return fmt.Errorf("%q: %w", r.Name, ErrExists)
			}
		}
		f.Keys = append(f.Keys, r)
		return nil
	})
	if err != nil {
		return NewKey{}, err
	}
	return NewKey{Key: key, Info: r.info()}, nil
}

// freeName is the first of key-1, key-2, … no key has.
func freeName(keys []record) string {
	for i := 1; ; i++ {
		n := "key-" + strconv.Itoa(i)
		taken := false
		for _, k := range keys {
			taken = taken || k.Name == n
		}
		if !taken {
			return n
		}
	}
}

// Revoke deletes the key named name; requests presenting it are refused from
// then on, in every process using the file.
func (s *Store) Revoke(name string) error {
	return s.update(func(f *file) error {
		for i, k := range f.Keys {
			if k.Name == name {
				f.Keys = append(f.Keys[:i], f.Keys[i+1:]...)
				return nil
			}
		}
		return fmt.Errorf("%q: %w", name, ErrNotFound)
	})
}

// Check returns the stored key that key is, or ErrInvalid. The presented key's
// hash is compared in constant time with every stored hash (no early exit), so
// neither the time taken nor the order of keys tells anything about them. A use
// is recorded as the key's last use, at most every UseEvery.
func (s *Store) Check(key string) (Info, error) {
	h := hash(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(false); err != nil {
		return Info{}, err
	}
	match := -1
	for i := range s.hashes {
		if subtle.ConstantTimeCompare(h[:], s.hashes[i][:]) == 1 {
			match = i
		}
	}
	if match < 0 {
		return Info{}, ErrInvalid
	}
	r := s.keys[match]
	s.noteUse(r)
	return r.info(), nil
}

// noteUse records a use of r in the file unless one was recorded within
// UseEvery. Called with s.mu held.
func (s *Store) noteUse(r record) {
	every := s.UseEvery
	if every <= 0 {
		every = time.Minute
	}
	now := s.now().UTC().Truncate(time.Second)
	last := s.touched[r.Name]
	if r.LastUsed != nil && r.LastUsed.After(last) {
		last = *r.LastUsed
	}
	if !last.IsZero() && now.Sub(last) < every {
		return
	}
	if s.touched == nil {
		s.touched = map[string]time.Time{}
	}
	// Remembered even when the write fails, so a read-only data directory costs
	// one failed write a minute, not one a request.
	s.touched[r.Name] = now
	err := s.updateLocked(func(f *file) error {
		for i := range f.Keys {
			if f.Keys[i].Name == r.Name && f.Keys[i].SHA256 == r.SHA256 {
				f.Keys[i].LastUsed = &now
			}
		}
		return nil
	})
	if err != nil {
		s.logger().Warn("could not record an API key's use", "component", "apikey", "key", r.Name, "err", err)
	}
}

// update changes the file under the cross-process lock: it reads it, applies
// change and writes it back.
func (s *Store) update(change func(*file) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updateLocked(change)
}

// updateLocked is update with s.mu held.
func (s *Store) updateLocked(change func(*file) error) error {
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	lf, err := os.OpenFile(s.Path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open API key lock: %w", err)
	}
	defer lf.Close()
	if err := lockFile(lf); err != nil {
		return fmt.Errorf("lock API keys: %w", err)
	}
	defer unlockFile(lf)
	// Another process may have changed the file since it was last read here.
	if err := s.load(true); err != nil {
		return err
	}
	f := file{Version: fileVersion, Keys: append([]record(nil), s.keys...)}
	if err := change(&f); err != nil {
		return err
	}
	if err := atomicfile.WriteJSON(s.Path, f); err != nil {
		return fmt.Errorf("save API keys: %w", err)
	}
	return s.load(true)
}

// load brings the copy of the file up to date: when force is set, when it is
// older than maxStale, or when the file was replaced (another inode, time or
// size). Called with s.mu held.
func (s *Store) load(force bool) error {
	st, err := os.Stat(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		s.keys, s.hashes, s.stat, s.loaded = nil, nil, nil, true
		return nil
	}
	if err != nil {
		return fmt.Errorf("read API keys: %w", err)
	}
	now := time.Now()
	if !force && s.loaded && s.stat != nil && os.SameFile(st, s.stat) && st.ModTime().Equal(s.stat.ModTime()) &&
		st.Size() == s.stat.Size() && now.Sub(s.readAt) < maxStale {
		return nil
	}
	data, err := os.ReadFile(s.Path)
	if err != nil {
		return fmt.Errorf("read API keys: %w", err)
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return fmt.Errorf("read API keys %s: %w", s.Path, err)
	}
	if f.Version != fileVersion {
		return fmt.Errorf("read API keys %s: format version %d, this Logbook knows %d", s.Path, f.Version, fileVersion)
	}
	hashes := make([][sha256.Size]byte, len(f.Keys))
	for i, k := range f.Keys {
		b, err := hex.DecodeString(k.SHA256)
		if err != nil || len(b) != sha256.Size {
			return fmt.Errorf("read API keys %s: key %q has no valid sha256", s.Path, k.Name)
		}
		copy(hashes[i][:], b)
	}
	s.keys, s.hashes, s.stat, s.readAt, s.loaded = f.Keys, hashes, st, now, true
	return nil
}
