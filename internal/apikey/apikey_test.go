package apikey

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	return New(filepath.Join(t.TempDir(), FileName))
}

func TestCreate(t *testing.T) {
	s := newStore(t)
	k, err := s.Create("ci")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(k.Key, Prefix), k.Key)
	assert.Len(t, k.Key, len(Prefix)+43, "32 bytes of base64url")
	sum := sha256.Sum256([]byte(k.Key))
	assert.Equal(t, hex.EncodeToString(sum[:])[:12], k.Info.Fingerprint)
	assert.Equal(t, "ci", k.Info.Name)
	assert.Nil(t, k.Info.LastUsed)

	t.Run("StoredOnlyAsHash", func(t *testing.T) {
		data, err := os.ReadFile(s.Path)
		require.NoError(t, err)
		assert.NotContains(t, string(data), k.Key)
		assert.NotContains(t, string(data), strings.TrimPrefix(k.Key, Prefix))
		assert.Contains(t, string(data), hex.EncodeToString(sum[:]))
		st, err := os.Stat(s.Path)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	})
	t.Run("ErrExists", func(t *testing.T) {
		_, err := s.Create("ci")
		assert.ErrorIs(t, err, ErrExists)
	})
	t.Run("ErrBadName", func(t *testing.T) {
		for _, n := range []string{"has space", "a/b", "\x1b[31m", strings.Repeat("x", 65)} {
			_, err := s.Create(n)
			assert.ErrorIs(t, err, ErrBadName, n)
		}
	})
	t.Run("DefaultNames", func(t *testing.T) {
		a, err := s.Create("")
		require.NoError(t, err)
		b, err := s.Create("")
		require.NoError(t, err)
		assert.Equal(t, "key-1", a.Info.Name)
		assert.Equal(t, "key-2", b.Info.Name)
		assert.NotEqual(t, a.Key, b.Key)
	})
	list, err := s.List()
	require.NoError(t, err)
	var names []string
	for _, i := range list {
		names = append(names, i.Name)
	}
	assert.Equal(t, []string{"ci", "key-1", "key-2"}, names)
}

func TestCheck(t *testing.T) {
	s := newStore(t)
	a, err := s.Create("a")
	require.NoError(t, err)
	b, err := s.Create("b")
	require.NoError(t, err)

	t.Run("OK", func(t *testing.T) {
		for _, k := range []NewKey{a, b} {
			got, err := s.Check(k.Key)
			require.NoError(t, err)
			assert.Equal(t, k.Info.Name, got.Name)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, k := range []string{"", Prefix, a.Key + "x", a.Key[:len(a.Key)-1], strings.ToUpper(a.Key), a.Info.Fingerprint,
			hex.EncodeToString(func() []byte { h := sha256.Sum256([]byte(a.Key)); return h[:] }())} {
			_, err := s.Check(k)
			assert.ErrorIs(t, err, ErrInvalid, "%q", k)
		}
	})
	t.Run("Revoked", func(t *testing.T) {
		require.NoError(t, s.Revoke("a"))
		_, err := s.Check(a.Key)
		assert.ErrorIs(t, err, ErrInvalid)
		_, err = s.Check(b.Key)
		assert.NoError(t, err, "the other key still works")
		assert.ErrorIs(t, s.Revoke("a"), ErrNotFound)
	})
	t.Run("NoFile", func(t *testing.T) {
		_, err := newStore(t).Check(a.Key)
		assert.ErrorIs(t, err, ErrInvalid)
	})
	t.Run("CorruptFileRefuses", func(t *testing.T) {
		c := newStore(t)
		require.NoError(t, os.WriteFile(c.Path, []byte("{nope"), 0o600))
		_, err := c.Check(a.Key)
		require.Error(t, err)
		assert.NotErrorIs(t, err, ErrInvalid)
		_, err = c.Create("x")
		assert.Error(t, err, "a damaged file is never overwritten (its keys would be lost)")
	})
}

// TestAnotherProcess has a second Store on the same file stand for the CLI beside
// a running serve: a key it creates works in the first at once, and one it
// revokes stops working at once.
func TestAnotherProcess(t *testing.T) {
	serve := newStore(t)
	cli := New(serve.Path)
	ok, err := serve.Any()
	require.NoError(t, err)
	assert.False(t, ok)
	_, err = serve.Check("lbk_x")
	require.ErrorIs(t, err, ErrInvalid) // the empty state is cached now

	k, err := cli.Create("script")
	require.NoError(t, err)
	_, err = serve.Check(k.Key)
	require.NoError(t, err, "a key created by another process works without a restart")
	for range 3 { // cached now: revocation must still show at once
		_, err = serve.Check(k.Key)
		require.NoError(t, err)
	}
	require.NoError(t, cli.Revoke("script"))
	_, err = serve.Check(k.Key)
	assert.ErrorIs(t, err, ErrInvalid, "a key revoked by another process stops working")
}

func TestLastUsed(t *testing.T) {
	s := newStore(t)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return now }
	k, err := s.Create("a")
	require.NoError(t, err)
	lastUsed := func() *time.Time {
		list, err := New(s.Path).List() // as another process reads it
		require.NoError(t, err)
		return list[0].LastUsed
	}
	assert.Nil(t, lastUsed())
	_, err = s.Check(k.Key)
	require.NoError(t, err)
	require.NotNil(t, lastUsed())
	assert.Equal(t, now, *lastUsed())

	first := now
	now = now.Add(30 * time.Second)
	_, err = s.Check(k.Key)
	require.NoError(t, err)
	assert.Equal(t, first, *lastUsed(), "written at most once a minute")

	now = now.Add(31 * time.Second)
	_, err = s.Check(k.Key)
	require.NoError(t, err)
	assert.Equal(t, now, *lastUsed())
}

// TestConcurrentChanges creates keys from several Stores at once (processes, as
// far as the file is concerned): none is lost.
func TestConcurrentChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	var wg sync.WaitGroup
	keys := make([]NewKey, 8)
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := New(path).Create("k" + string(rune('a'+i)))
			assert.NoError(t, err)
			keys[i] = k
		}()
	}
	wg.Wait()
	s := New(path)
	list, err := s.List()
	require.NoError(t, err)
	assert.Len(t, list, len(keys))
	for _, k := range keys {
		_, err := s.Check(k.Key)
		assert.NoError(t, err, k.Info.Name)
	}
	var f file
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &f))
	assert.Equal(t, fileVersion, f.Version)
}
