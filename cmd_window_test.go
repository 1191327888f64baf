package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNoCommandWithoutWindow(t *testing.T) {
	if desktopBuild {
		t.Skip("a desktop build opens the window")
	}
	r := cliData(t, t.TempDir())
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "usage: logbook")
	assert.Contains(t, r.stderr, "this build has no desktop window (no logbook-desktop beside it); run `logbook serve`")
	r = cliData(t, t.TempDir(), "window")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "no desktop window")
}
