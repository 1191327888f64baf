package archivesync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/crypt"
	"github.com/logbook/logbook/sync/repo"
)

// ErrOtherArchive means add-remote found another archive's key on the remote.
var ErrOtherArchive = errors.New("the remote holds another Logbook archive (a different key); give an empty folder or prefix")

// Setup is `logbook sync init`: on the first machine (the remote holds no
// published key) it creates the archive key; on every other machine the
// same call with the same passphrase joins. created says which.
// A wrong passphrase is crypt.ErrWrongPassphrase and saves nothing.
func Setup(ctx context.Context, p Paths, spec, passphrase string, logN int) (c Config, k *crypt.Key, created bool, err error) {
	if err := p.RefuseConfigured(); err != nil {
		return Config{}, nil, false, err
	}
	if passphrase == "" {
		return Config{}, nil, false, errors.New("the passphrase is empty")
	}
	r, err := OpenRemote(spec, EnsureRemote(ctx, spec))
	if err != nil {
		return Config{}, nil, false, err
	}
	has, err := hasKeys(ctx, r)
	if err != nil {
		return Config{}, nil, false, fmt.Errorf("remote %s: %w", spec, err)
	}
	if has {
		k, err = join(ctx, p, r, passphrase)
	} else {
		k, err = create(ctx, p, r, passphrase, logN)
	}
	if err != nil {
		return Config{}, nil, false, err
	}
	c = Config{Remote: canonical(spec), Machine: NewMachineID(), Created: time.Now().UTC()}
	return c, k, !has, SaveConfig(p, c)
}

// RemoteHasArchive reports whether spec already holds a published key, so
// init can tell a first machine (which confirms a typed passphrase) from a
// joining one. A failure to tell is "no": Setup reports it properly.
func RemoteHasArchive(ctx context.Context, spec string) bool {
	r, err := OpenRemote(spec, nil)
	if err != nil {
		return false
	}
	has, _ := hasKeys(ctx, r)
	return has
}

func hasKeys(ctx context.Context, r arcsync.Remote) (bool, error) {
	has := false
	err := r.List(ctx, "keys/", func(arcsync.Object) error { has = true; return errStopList })
	if errors.Is(err, errStopList) {
		err = nil
	}
	return has, err
}

var errStopList = errors.New("stop listing")

// AddRemote adds a further remote to a set-up data directory: the archive
// key is published there wrapped with passphrase (which must open the key
// published on the first remote, so every remote has one passphrase), or,
// when the remote already holds this archive's key, it is just checked.
// Every later sync pushes and pulls through each remote in turn.
func AddRemote(ctx context.Context, p Paths, spec, passphrase string, logN int) (Config, error) {
	c, err := LoadConfig(p)
	if err != nil {
		return c, err
	}
	k, err := crypt.Load(p.Key())
	if err != nil {
		return c, err
	}
	spec = canonical(spec)
	for _, have := range c.Remotes() {
		if have == spec {
			return c, fmt.Errorf("%s is already a remote of this archive", spec)
		}
	}
	first, err := OpenRemote(c.Remote, nil)
	if err != nil {
		return c, err
	}
	pk, err := repo.JoinKey(ctx, first, passphrase)
	if err != nil {
		return c, err
	}
	if pk.Fingerprint() != k.Fingerprint() {
		return c, fmt.Errorf("%w: the first remote's published key is not this machine's sync.key", crypt.ErrWrongKey)
	}
	r, err := OpenRemote(spec, EnsureRemote(ctx, spec))
	if err != nil {
		return c, err
	}
	rp := repo.New(r, k)
	has, err := hasKeys(ctx, r)
	if err != nil {
		return c, fmt.Errorf("remote %s: %w", spec, err)
	}
	if has {
		if err := rp.Check(ctx); err != nil {
			if errors.Is(err, crypt.ErrWrongKey) {
				return c, fmt.Errorf("remote %s: %w", spec, ErrOtherArchive)
			}
			return c, err
		}
		if _, err := r.Stat(ctx, "keys/"+k.Fingerprint()); err != nil {
			return c, fmt.Errorf("remote %s: %w", spec, ErrOtherArchive)
		}
	} else if err := rp.PublishKey(ctx, passphrase, logN); err != nil {
		return c, err
	}
	c.More = append(c.More, spec)
	return c, SaveConfig(p, c)
}

// RefuseConfigured is ErrConfigured, naming the file, when sync.json or
// sync.key is already in this data directory.
func (p Paths) RefuseConfigured() error {
	for _, f := range []string{p.Config(), p.Key()} {
		if _, err := os.Stat(f); err == nil {
			return fmt.Errorf("%w: %s", ErrConfigured, f)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// create sets up the first machine (Setup found no key on r): it creates
// the archive key (sync.key, 0600) and publishes it on r wrapped with
// passphrase (age scrypt, work factor logN; 0 for age's default).
func create(ctx context.Context, p Paths, r arcsync.Remote, passphrase string, logN int) (*crypt.Key, error) {
	k, err := crypt.Init(p.Key())
	if err != nil {
		return nil, err
	}
	if err := repo.New(r, k).PublishKey(ctx, passphrase, logN); err != nil {
		os.Remove(p.Key()) // nothing was encrypted with it yet
		return nil, err
	}
	return k, nil
}

// canonical is the spec as sync.json keeps it: a folder (or file:// URL)
// as an absolute path, so a later sync from another working directory
// finds it.
func canonical(spec string) string {
	if strings.HasPrefix(spec, "s3://") {
		return spec
	}
	if dir, err := folderPath(spec); err == nil {
		spec = dir
	}
	if abs, err := filepath.Abs(spec); err == nil {
		return abs
	}
	return spec
}

// join adds this machine to the archive on r: it opens the published key
// with passphrase (crypt.ErrWrongPassphrase when it does not) and saves it
// as sync.key.
func join(ctx context.Context, p Paths, r arcsync.Remote, passphrase string) (*crypt.Key, error) {
	k, err := repo.JoinKey(ctx, r, passphrase)
	if err != nil {
		return nil, err
	}
	if err := repo.New(r, k).Check(ctx); err != nil {
		return nil, err
	}
	return k, k.Save(p.Key())
}

// Open loads this machine's config and key and opens the repo on its
// first remote, checking that the key is the remote's.
func Open(ctx context.Context, p Paths) (Config, *repo.Repo, error) {
	c, err := LoadConfig(p)
	if err != nil {
		return c, nil, err
	}
	rp, err := OpenRepo(ctx, p, c.Remote)
	return c, rp, err
}

// OpenRepo opens the repo on one remote of this data directory with its
// key, checking that the key is the remote's. The remote is metered
// (Meter) for the sync report's byte counts.
func OpenRepo(ctx context.Context, p Paths, spec string) (*repo.Repo, error) {
	k, err := crypt.Load(p.Key())
	if err != nil {
		return nil, err
	}
	r, err := OpenRemote(spec, nil)
	if err != nil {
		return nil, err
	}
	rp := repo.New(&Meter{Remote: r}, k)
	if err := rp.Check(ctx); err != nil {
		return nil, fmt.Errorf("remote %s: %w", spec, err)
	}
	return rp, nil
}
