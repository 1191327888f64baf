//go:build unix

package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLockDataDir(t *testing.T) {
	dir := t.TempDir()
	release, err := lockDataDir(dir, "serve")
	require.NoError(t, err)

	_, err = lockDataDir(dir, "window")
	require.Error(t, err, "a second instance on the same archive is refused")
	assert.Contains(t, err.Error(), "Logbook serve (pid ")
	assert.Contains(t, err.Error(), dir)

	other, err := lockDataDir(t.TempDir(), "window")
	require.NoError(t, err, "another data directory is independent")
	other()

	release()
	again, err := lockDataDir(dir, "window")
	require.NoError(t, err, "released locks can be taken again")
	again()
}
