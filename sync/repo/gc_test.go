package repo_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	arcsync "github.com/logbook/logbook/sync"
	"github.com/logbook/logbook/sync/fsremote"
	"github.com/logbook/logbook/sync/repo"
)

// names lists the remote's objects under prefix.
func names(t *testing.T, r arcsync.Remote, prefix string) []string {
	t.Helper()
	var out []string
	require.NoError(t, r.List(context.Background(), prefix, func(o arcsync.Object) error {
		out = append(out, o.Name)
		return nil
	}))
	return out
}

// GC deletes what no live manifest references once it is older than the
// grace period, and nothing a machine still needs: the current manifests'
// pieces, young objects (a push in flight), heads and keys.
func TestGC(t *testing.T) {
	ctx := context.Background()
	remote := fsremote.New(t.TempDir())
	key := mustKey(t)
	r := repo.New(remote, key)
	require.NoError(t, r.PublishKey(ctx, "gc test", 10))
	v1 := logBytes(20, 3<<20)
	e1, _ := push(t, r, v1, "s", nil)
	_, err := r.Commit(ctx, "laptop", []repo.Entry{e1})
	require.NoError(t, err)
	// The session is rewritten in place: v1's pieces are no longer listed.
	v2 := logBytes(21, 2<<20)
	e2, _ := push(t, r, v2, "s", &e1)
	_, err = r.Commit(ctx, "laptop", []repo.Entry{e2})
	require.NoError(t, err)
	// A push in flight: its piece is stored, its manifest not yet.
	inflight, _ := push(t, r, logBytes(22, 100<<10), "t", nil)
	before := len(names(t, remote, "data/"))
	require.Equal(t, len(e1.Pieces)+len(e2.Pieces)+len(inflight.Pieces), before)

	st, err := r.GC(ctx, time.Hour, false)
	require.NoError(t, err)
	assert.Zero(t, st.Deleted, "everything is younger than the grace period")
	// v1's manifest is young, so it is live and its pieces referenced; the
	// in-flight piece is referenced by nothing yet, but young.
	assert.Equal(t, len(inflight.Pieces), st.Young)
	assert.Equal(t, st.Objects-st.Young, st.Referenced)

	// Later: past the grace period, the in-flight push committed meanwhile.
	_, err = r.Commit(ctx, "desktop", []repo.Entry{inflight})
	require.NoError(t, err)
	r.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	dry, err := r.GC(ctx, time.Hour, true)
	require.NoError(t, err)
	assert.Equal(t, len(e1.Pieces)+1, dry.Deleted, "v1's pieces and the replaced manifest")
	assert.Len(t, names(t, remote, "data/"), before, "a dry run deletes nothing")
	st, err = r.GC(ctx, time.Hour, false)
	require.NoError(t, err)
	assert.Equal(t, dry, st)
	assert.Len(t, names(t, remote, "data/"), len(e2.Pieces)+len(inflight.Pieces))
	assert.Len(t, names(t, remote, "heads/"), 2)
	assert.Len(t, names(t, remote, "keys/"), 1)
	for _, m := range names(t, remote, "manifests/") {
		assert.False(t, strings.HasSuffix(m, "/"), m)
	}
	ms, err := r.Manifests(ctx)
	require.NoError(t, err)
	require.Len(t, ms, 2)
	assert.Equal(t, v2, pull(t, r, e2), "what the heads list still pulls")

	// A push that finds an old stored piece does not rely on it (GC could
	// take it): it stores it again, fresh.
	r.Fresh = time.Hour
	_, st2 := push(t, r, v2, "copy-of-s", nil)
	assert.Zero(t, st2.Existing)
	assert.Equal(t, len(e2.Pieces), st2.Pieces)
	_, err = r.GC(ctx, 0, false)
	assert.Error(t, err, "a grace period is required")
}
