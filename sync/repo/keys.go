package repo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/crypt"
)

// ErrNoPublishedKey means the remote holds no passphrase-wrapped key, so a
// new machine cannot join from it; copy the export by hand instead.
var ErrNoPublishedKey = errors.New("repo: the remote holds no published key; run `logbook sync init` on the first machine")

// PublishKey stores the archive key on the remote wrapped with passphrase
// (age scrypt, work factor logN; 0 for the default), at keys/<fingerprint>.
// What `logbook sync init` prints for adding a machine is: point it at the
// same remote and give it this passphrase.
func (r *Repo) PublishKey(ctx context.Context, passphrase string, logN int) error {
	exp, err := r.Key.Export(passphrase, logN)
	if err != nil {
		return err
	}
	if err := r.Remote.Put(ctx, "keys/"+r.Key.Fingerprint(), bytes.NewReader(exp), int64(len(exp))); err != nil {
		return fmt.Errorf("publish key: %w", err)
	}
	return nil
}

// JoinKey fetches the published key from remote and opens it with
// passphrase: how a second machine gets the key (then crypt.Key.Save).
func JoinKey(ctx context.Context, remote arcsync.Remote, passphrase string) (*crypt.Key, error) {
	var names []string
	if err := remote.List(ctx, "keys/", func(o arcsync.Object) error {
		names = append(names, o.Name)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("join: %w", err)
	}
	if len(names) == 0 {
		return nil, ErrNoPublishedKey
	}
	for _, n := range names {
		exp, err := arcsync.Get(ctx, remote, n)
		if err != nil {
			return nil, fmt.Errorf("join: %w", err)
		}
		k, err := crypt.Import(exp, passphrase)
		if errors.Is(err, crypt.ErrWrongPassphrase) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("join: %s: %w", n, err)
		}
		return k, nil
	}
	return nil, crypt.ErrWrongPassphrase
}

// Check tells early whether Key is this remote's key, before a sync reads
// or writes anything: with a different key every piece name differs, so
// the mistake would otherwise look like an empty or missing archive. It
// returns crypt.ErrWrongKey if the remote has published keys and none is
// ours, or if a machine head does not decrypt. An empty remote fits any key.
func (r *Repo) Check(ctx context.Context) error {
	var keys, heads []string
	err := r.Remote.List(ctx, "", func(o arcsync.Object) error {
		switch {
		case strings.HasPrefix(o.Name, "keys/"):
			keys = append(keys, o.Name)
		case strings.HasPrefix(o.Name, "heads/") && len(heads) == 0:
			heads = append(heads, o.Name)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	if len(keys) > 0 && !slices.Contains(keys, "keys/"+r.Key.Fingerprint()) {
		return fmt.Errorf("check: %w (this key is %s)", crypt.ErrWrongKey, r.Key.Fingerprint())
	}
	if len(heads) > 0 {
		if _, _, err := r.getSealed(ctx, heads[0], nil, true); err != nil {
			return fmt.Errorf("check: %w", err)
		}
	}
	return nil
}
