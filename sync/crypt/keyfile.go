package crypt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// ErrKeyExists is returned by Init when the key file is already there:
// making a new key would orphan everything encrypted with the old one.
var ErrKeyExists = errors.New("crypt: key file already exists")

// Init creates a new Key and writes it to path with mode 0600 (the folder
// 0700), refusing to overwrite an existing file.
func Init(path string) (*Key, error) {
	k, err := Generate()
	if err != nil {
		return nil, err
	}
	if err := k.Save(path); err != nil {
		return nil, err
	}
	return k, nil
}

// Save writes k to a new file at path, mode 0600, synced to disk. It fails
// with ErrKeyExists rather than replace a key.
func (k *Key) Save(path string) (err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("crypt: save key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w: %s", ErrKeyExists, path)
	}
	if err != nil {
		return fmt.Errorf("crypt: save key: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("crypt: save key: %w", cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	if _, err := f.Write(k.Marshal()); err != nil {
		return fmt.Errorf("crypt: save key: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("crypt: save key: %w", err)
	}
	return nil
}

// Load reads the key file at path. On Unix it refuses a file that group or
// others can read, as ssh does, since that key decrypts the whole archive.
func Load(path string) (*Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("crypt: load key: %w", err)
	}
	defer f.Close()
	if runtime.GOOS != "windows" {
		info, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("crypt: load key: %w", err)
		}
		if perm := info.Mode().Perm(); perm&0o077 != 0 {
			return nil, fmt.Errorf("crypt: load key: %s has mode %04o; run chmod 600 on it", path, perm)
		}
	}
	return ParseKey(f)
}
