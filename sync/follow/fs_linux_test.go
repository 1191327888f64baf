package follow

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNetworkFS(t *testing.T) {
	t.Run("LocalFolderIsNot", func(t *testing.T) {
		typ, network := networkFS(t.TempDir())
		assert.False(t, network, typ)
	})
	t.Run("MissingFolderIsNot", func(t *testing.T) {
		_, network := networkFS("/no/such/folder")
		assert.False(t, network)
	})
	t.Run("MountTypeOfRoot", func(t *testing.T) {
		assert.NotEmpty(t, mountType("/"))
	})
	t.Run("MountPointEscapes", func(t *testing.T) {
		assert.Equal(t, "/mnt/my share", unescapeMount(`/mnt/my\040share`))
		assert.Equal(t, `/mnt/a\b`, unescapeMount(`/mnt/a\134b`))
		assert.Equal(t, `/mnt/x\0`, unescapeMount(`/mnt/x\0`), "a cut escape is kept")
	})
	t.Run("WatchLimitIsRead", func(t *testing.T) {
		assert.Positive(t, watchLimit())
	})
}
