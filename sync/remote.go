package sync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrNotExist is returned (wrapped) by Open, Stat and Get when the named object
// does not exist. Test for it with IsNotExist or errors.Is.
var ErrNotExist = errors.New("sync: object does not exist")

// ErrInvalidName is returned (wrapped) by every Remote method given a name or
// prefix that ValidateName or ValidatePrefix refuses. It is never retryable.
var ErrInvalidName = errors.New("sync: invalid object name")

// ErrSizeMismatch is returned (wrapped) by Put when the reader yields more or
// fewer bytes than the size it was given; nothing becomes visible.
var ErrSizeMismatch = errors.New("sync: object size mismatch")

// IsNotExist reports whether err says an object does not exist.
func IsNotExist(err error) bool { return errors.Is(err, ErrNotExist) }

// Object describes one stored object.
type Object struct {
	// Name is the full object name, e.g. "data/ab/ab12…".
	Name string
	// Size is the object's length in bytes.
	Size int64
	// ModTime is when the object was last written, as the remote reports it.
	ModTime time.Time
}

// Remote is a flat store of immutable-ish named objects: a folder, an S3
// bucket, or a fake. Logbook only ever writes content-addressed pieces (whose
// name is derived from their content, so rewriting one is harmless) and
// per-machine head objects that only their own machine replaces, so Remote
// needs no locking, no rename and no conditional writes.
//
// Names are ValidateName-clean: slash-separated segments of [A-Za-z0-9._-].
// Every method returns a wrapped ErrInvalidName for any other name, before
// doing I/O. Errors that a retry may cure are marked so that IsRetryable
// reports true; everything else is permanent.
type Remote interface {
	// List calls fn for every object whose name starts with prefix, in
	// ascending byte order of name, across as many underlying pages as
	// needed. If fn returns an error, List stops and returns that error
	// unchanged. Listing is read-only and safe to retry; a retry restarts
	// from the beginning (Retry resumes after the last name delivered).
	List(ctx context.Context, prefix string, fn func(Object) error) error

	// Open returns a reader of the object's whole content, streamed, never
	// buffered whole in memory. A missing object is ErrNotExist. Open is
	// read-only and safe to retry; an error part way through reading is
	// reported by Read and is not retried by the Remote.
	Open(ctx context.Context, name string) (io.ReadCloser, error)

	// Stat returns the object's metadata or ErrNotExist. Safe to retry.
	Stat(ctx context.Context, name string) (Object, error)

	// Put stores exactly size bytes read from r under name, replacing any
	// existing object. Visibility is atomic: until Put returns nil, readers
	// see the previous object (or none), never a partial one; if Put fails
	// (read error, ErrSizeMismatch, cancelled ctx) the previous state
	// stands. Put is idempotent for equal content and may be retried if r
	// can be rewound (Retry rewinds an io.Seeker).
	Put(ctx context.Context, name string, r io.Reader, size int64) error

	// Delete removes the object. Deleting a missing object is not an error,
	// so Delete is idempotent and safe to retry.
	Delete(ctx context.Context, name string) error
}

// MaxGet bounds what Get reads into memory: a remote, trusted or not, cannot
// make it hold more.
const MaxGet = 16 << 20

// Get reads the whole named object into memory. It is meant for small
// objects such as keys and heads; an object larger than MaxGet is an error
// (stream pieces with Open).
func Get(ctx context.Context, r Remote, name string) ([]byte, error) {
	rc, err := r.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, MaxGet+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(b) > MaxGet {
		return nil, fmt.Errorf("read %s: the object is larger than %d MiB, more than a key or head this version writes", name, MaxGet>>20)
	}
	return b, nil
}

// maxNameLen bounds names well below S3's 1024-byte key limit, leaving room
// for a bucket prefix, and below common file-system path limits.
const maxNameLen = 512

// ValidateName reports, as a wrapped ErrInvalidName, why name cannot be an
// object name. A valid name is 1–512 bytes of slash-separated segments; each
// segment is non-empty, made of ASCII letters, digits, '.', '_' and '-', and
// does not start with '.' (so no "." or ".." traversal and no hidden or
// temporary file can collide with an object).
func ValidateName(name string) error {
	if name == "" || len(name) > maxNameLen {
		return fmt.Errorf("%w: %q: length %d", ErrInvalidName, name, len(name))
	}
	segStart := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '/':
			if segStart {
				return fmt.Errorf("%w: %q: empty segment", ErrInvalidName, name)
			}
			segStart = true
			continue
		case c == '.' && segStart:
			return fmt.Errorf("%w: %q: segment starts with '.'", ErrInvalidName, name)
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '.', c == '_', c == '-':
		default:
			return fmt.Errorf("%w: %q: byte %#x not allowed", ErrInvalidName, name, c)
		}
		segStart = false
	}
	if segStart {
		return fmt.Errorf("%w: %q: trailing slash", ErrInvalidName, name)
	}
	return nil
}

// ValidatePrefix is ValidateName for List prefixes: the empty prefix and a
// trailing slash ("data/") are allowed as well.
func ValidatePrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	trimmed := prefix
	if trimmed[len(trimmed)-1] == '/' {
		trimmed = trimmed[:len(trimmed)-1]
	}
	if err := ValidateName(trimmed); err != nil {
		return fmt.Errorf("prefix: %w", err)
	}
	return nil
}

// ContextReader returns a reader that fails with ctx's error once ctx is
// done, so a long copy (a Put streaming a large piece) stops promptly.
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
