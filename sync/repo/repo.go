// Package repo stores session logs on a sync.Remote the way Logbook syncs
// them: each session's original bytes as immutable, encrypted,
// content-addressed pieces, plus one small encrypted manifest per machine.
// The SQLite archive and the Bleve index never travel; they are rebuilt
// from the pieces on the receiving machine.
//
// Remote layout (every name is opaque; none reveals a session id, project,
// path, title or machine name):
//
//	data/<hh>/<hmac>           a piece: age(plaintext bytes); hmac = Key.Name(sha256(plaintext))
//	manifests/<mtag>/<hmac>    a manifest: age(zstd(JSON)), immutable
//	heads/<mtag>               age(JSON{machine, seq, manifest name}), replaced by its machine only
//	keys/<fingerprint>         the archive key wrapped with a passphrase (age scrypt)
//
// where mtag = Key.Tag("machine", machineID).
//
// Write order makes interruption harmless and concurrency safe: pieces
// first, then the manifest that lists them, then the head that names the
// manifest. A sync killed at any point leaves only unreferenced pieces
// that the next run finds (Stat) and does not upload again. Two machines
// never write the same mutable object: pieces and manifests are
// content-addressed (two writers of one name write equal plaintext), and
// each machine replaces only its own head.
package repo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/crypt"
)

// DefaultPieceSize is the grid that splits a session's bytes; see Push.
const DefaultPieceSize = 1 << 20

// DefaultMaxFragments is how many pieces one grid cell may be made of
// before Push rewrites it as one piece.
const DefaultMaxFragments = 8

// Repo is an archive on a remote, opened with its key.
type Repo struct {
	// Remote holds the objects; wrap it in sync.Retry for flaky networks.
	Remote arcsync.Remote
	// Key encrypts and names everything.
	Key *crypt.Key
	// PieceSize is the chunk grid in bytes.
	PieceSize int64
	// MaxFragments bounds the pieces per grid cell.
	MaxFragments int
	// Parallel is how many pieces move at once.
	Parallel int
	// Now stamps manifests.
	Now func() time.Time
	// Fresh is how recent an already stored piece must be for Push to rely
	// on it instead of uploading it again (0: any age). Set it to half of
	// GC's grace period; see GC.
	Fresh time.Duration
}

// New returns a Repo with defaults.
func New(r arcsync.Remote, k *crypt.Key) *Repo {
	return &Repo{Remote: r, Key: k, PieceSize: DefaultPieceSize, MaxFragments: DefaultMaxFragments, Parallel: 4, Now: time.Now, Fresh: DefaultGrace / 2}
}

func (r *Repo) pieceName(h crypt.Hash) string {
	n := r.Key.Name(h)
	return "data/" + n[:2] + "/" + n
}

// putSealed encrypts plaintext and stores it under name unless an object
// of that name exists (content addressing: it already holds this
// plaintext). It returns the bytes sent, 0 when skipped.
func (r *Repo) putSealed(ctx context.Context, name string, plaintext []byte, skipExisting bool) (int64, error) {
	if skipExisting {
		o, err := r.Remote.Stat(ctx, name)
		if err == nil && (r.Fresh <= 0 || r.Now().Sub(o.ModTime) < r.Fresh) {
			return 0, nil
		}
		if err == nil {
			err = arcsync.ErrNotExist // old: GC may take it, so store it anew
		}
		if !arcsync.IsNotExist(err) {
			return 0, err
		}
	}
	ct, err := r.Key.Encrypt(plaintext)
	if err != nil {
		return 0, err
	}
	// A bytes.Reader is an io.Seeker, so sync.Retry can resend it.
	if err := r.Remote.Put(ctx, name, bytes.NewReader(ct), int64(len(ct))); err != nil {
		return 0, err
	}
	return int64(len(ct)), nil
}

// maxObject bounds what getSealed reads, so a hostile remote cannot make
// us allocate without limit.
const maxObject = 256 << 20

// getSealed fetches and decrypts name; want, if non-nil, is checked.
// listed says the name came from a listing rather than from our key.
func (r *Repo) getSealed(ctx context.Context, name string, want *crypt.Hash, listed bool) ([]byte, int64, error) {
	rc, err := r.Remote.Open(ctx, name)
	if err != nil {
		return nil, 0, err
	}
	defer rc.Close()
	// Size the buffer for a whole piece plus age overhead up front;
	// io.ReadAll would reallocate it a dozen times.
	buf := bytes.NewBuffer(make([]byte, 0, r.PieceSize+r.PieceSize/4096+1024+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(rc, maxObject+1)); err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", name, err)
	}
	ct := buf.Bytes()
	if len(ct) > maxObject {
		return nil, 0, fmt.Errorf("%s: %w: larger than %d bytes", name, crypt.ErrCorrupt, maxObject)
	}
	var pt []byte
	if want != nil {
		pt, err = r.Key.DecryptVerify(ct, *want)
	} else {
		pt, err = r.Key.Decrypt(ct)
	}
	if err != nil && !listed && errors.Is(err, crypt.ErrWrongKey) {
		// The name was derived from our key, so the object was written
		// with it: a header that no longer opens was damaged. (age cannot
		// tell a damaged recipient stanza from a foreign key.)
		return nil, 0, fmt.Errorf("%s: %w: its header does not open with this archive's key", name, crypt.ErrCorrupt)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	return pt, int64(len(ct)), nil
}
