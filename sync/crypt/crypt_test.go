package crypt_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/sync/crypt"
)

func mustKey(t testing.TB) *crypt.Key {
	t.Helper()
	k, err := crypt.Generate()
	require.NoError(t, err)
	return k
}

func TestEncryptDecrypt(t *testing.T) {
	k := mustKey(t)
	pt := bytes.Repeat([]byte(`{"type":"assistant","text":"hi"}`+"\n"), 10000)

	t.Run("OK", func(t *testing.T) {
		ct, err := k.Encrypt(pt)
		require.NoError(t, err)
		assert.NotContains(t, string(ct), `"assistant"`)
		got, err := k.DecryptVerify(ct, crypt.Sum(pt))
		require.NoError(t, err)
		assert.Equal(t, pt, got)
	})
	t.Run("ErrWrongKey", func(t *testing.T) {
		ct, err := k.Encrypt(pt)
		require.NoError(t, err)
		_, err = mustKey(t).Decrypt(ct)
		assert.ErrorIs(t, err, crypt.ErrWrongKey)
		assert.NotErrorIs(t, err, crypt.ErrCorrupt)
	})
	t.Run("ErrCorrupt", func(t *testing.T) {
		ct, err := k.Encrypt(pt)
		require.NoError(t, err)
		for _, at := range []int{len(ct) / 2, len(ct) - 1, len(ct) - 20} {
			bad := bytes.Clone(ct)
			bad[at] ^= 1
			_, err = k.Decrypt(bad)
			assert.ErrorIs(t, err, crypt.ErrCorrupt, "flip at %d", at)
		}
		_, err = k.Decrypt(ct[:len(ct)-100])
		assert.ErrorIs(t, err, crypt.ErrCorrupt, "truncated")
		_, err = k.Decrypt([]byte("not age at all"))
		assert.ErrorIs(t, err, crypt.ErrCorrupt, "garbage")
	})
	t.Run("ErrCorruptWrongName", func(t *testing.T) {
		// A genuine object stored under another piece's name.
		ct, err := k.Encrypt([]byte("other piece"))
		require.NoError(t, err)
		_, err = k.DecryptVerify(ct, crypt.Sum(pt))
		assert.ErrorIs(t, err, crypt.ErrCorrupt)
	})
}

func TestNames(t *testing.T) {
	k := mustKey(t)
	h := crypt.Sum([]byte("piece"))
	n := k.Name(h)
	assert.Len(t, n, 64)
	assert.Equal(t, n, k.Name(h), "deterministic, so equal pieces dedupe")
	assert.NotEqual(t, n, h.String(), "not the bare content hash")
	assert.NotEqual(t, n, mustKey(t).Name(h), "keyed per archive")
	assert.NotEqual(t, k.Tag("machine", "a"), k.Tag("session", "a"), "domain separated")
	assert.Len(t, k.Tag("machine", "laptop"), 32)
	assert.NotContains(t, k.Tag("machine", "laptop"), "laptop")

	var back crypt.Hash
	require.NoError(t, back.UnmarshalText([]byte(h.String())))
	assert.Equal(t, h, back)
	assert.Error(t, back.UnmarshalText([]byte("abc")))
}

func TestKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys", "sync.key")
	k, err := crypt.Init(path)
	require.NoError(t, err)
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	_, err = crypt.Init(path)
	assert.ErrorIs(t, err, crypt.ErrKeyExists, "Init never replaces a key")

	loaded, err := crypt.Load(path)
	require.NoError(t, err)
	assert.Equal(t, k.Recipient(), loaded.Recipient())
	assert.Equal(t, k.Name(crypt.Sum(nil)), loaded.Name(crypt.Sum(nil)))

	require.NoError(t, os.Chmod(path, 0o644))
	_, err = crypt.Load(path)
	assert.ErrorContains(t, err, "chmod 600")
}

func TestExportImport(t *testing.T) {
	k := mustKey(t)
	exp, err := k.Export("correct horse battery staple", 10)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(exp), "-----BEGIN AGE ENCRYPTED FILE-----"))
	assert.NotContains(t, string(exp), "AGE-SECRET-KEY")

	t.Run("OK", func(t *testing.T) {
		k2, err := crypt.Import(exp, "correct horse battery staple")
		require.NoError(t, err)
		assert.Equal(t, k.Fingerprint(), k2.Fingerprint())
		ct, err := k.Encrypt([]byte("shared"))
		require.NoError(t, err)
		pt, err := k2.Decrypt(ct)
		require.NoError(t, err)
		assert.Equal(t, "shared", string(pt))
	})
	t.Run("ErrWrongPassphrase", func(t *testing.T) {
		_, err := crypt.Import(exp, "wrong")
		assert.ErrorIs(t, err, crypt.ErrWrongPassphrase)
	})
	t.Run("EmptyPassphraseRefused", func(t *testing.T) {
		_, err := k.Export("", 10)
		assert.Error(t, err)
	})
}
