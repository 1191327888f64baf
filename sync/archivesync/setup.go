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

// ErrRemoteInUse means init found an archive already on the remote.
var ErrRemoteInUse = errors.New("the remote already holds a Logbook archive: run `logbook sync join REMOTE` to add this machine to it")

func (p Paths) refuseConfigured() error {
	for _, f := range []string{p.Config(), p.Key()} {
		if _, err := os.Stat(f); err == nil {
			return fmt.Errorf("%w: %s", ErrConfigured, f)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Init sets up sync on the first machine: it creates the archive key
// (sync.key, 0600), publishes it on the remote wrapped with passphrase (age
// scrypt, work factor logN; 0 for age's default) and saves sync.json.
func Init(ctx context.Context, p Paths, spec, passphrase string, logN int) (Config, *crypt.Key, error) {
	if err := p.refuseConfigured(); err != nil {
		return Config{}, nil, err
	}
	if passphrase == "" {
		return Config{}, nil, errors.New("the passphrase is empty")
	}
	r, err := OpenRemote(spec, EnsureRemote(ctx, spec))
	if err != nil {
		return Config{}, nil, err
	}
	has := false
	if err := r.List(ctx, "keys/", func(arcsync.Object) error { has = true; return nil }); err != nil {
		return Config{}, nil, fmt.Errorf("remote %s: %w", spec, err)
	}
	if has {
		return Config{}, nil, ErrRemoteInUse
	}
	k, err := crypt.Init(p.Key())
	if err != nil {
		return Config{}, nil, err
	}
	if err := repo.New(r, k).PublishKey(ctx, passphrase, logN); err != nil {
		os.Remove(p.Key()) // nothing was encrypted with it yet
		return Config{}, nil, err
	}
	c := Config{Remote: canonical(spec), Machine: NewMachineID(), Created: time.Now().UTC()}
	return c, k, SaveConfig(p, c)
}

// canonical is the spec as sync.json keeps it: a folder as an absolute path,
// so a later sync from another working directory finds it.
func canonical(spec string) string {
	if strings.HasPrefix(spec, "s3://") {
		return spec
	}
	if abs, err := filepath.Abs(spec); err == nil {
		return abs
	}
	return spec
}

// Join adds this machine to the archive on the remote: it opens the
// published key with passphrase (crypt.ErrWrongPassphrase when it does
// not), saves it as sync.key and saves sync.json.
func Join(ctx context.Context, p Paths, spec, passphrase string) (Config, *crypt.Key, error) {
	if err := p.refuseConfigured(); err != nil {
		return Config{}, nil, err
	}
	r, err := OpenRemote(spec, nil)
	if err != nil {
		return Config{}, nil, err
	}
	k, err := repo.JoinKey(ctx, r, passphrase)
	if err != nil {
		return Config{}, nil, err
	}
	if err := repo.New(r, k).Check(ctx); err != nil {
		return Config{}, nil, err
	}
	if err := k.Save(p.Key()); err != nil {
		return Config{}, nil, err
	}
	c := Config{Remote: canonical(spec), Machine: NewMachineID(), Created: time.Now().UTC()}
	return c, k, SaveConfig(p, c)
}

// Open loads this machine's config and key and opens the repo on its
// remote, checking that the key is the remote's.
func Open(ctx context.Context, p Paths) (Config, *repo.Repo, error) {
	c, err := LoadConfig(p)
	if err != nil {
		return c, nil, err
	}
	k, err := crypt.Load(p.Key())
	if err != nil {
		return c, nil, err
	}
	r, err := OpenRemote(c.Remote, nil)
	if err != nil {
		return c, nil, err
	}
	rp := repo.New(r, k)
	if err := rp.Check(ctx); err != nil {
		return c, nil, err
	}
	return c, rp, nil
}
