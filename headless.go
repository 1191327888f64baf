//go:build !desktop && !bindings

package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// desktopBuild is false: this binary was built without the Wails window (no
// desktop tag), so it needs no GTK or WebKit and starts in a few milliseconds: it is
// the `logbook` a person runs for the CLI and `logbook serve`. The window lives in a
// companion binary, logbook-desktop, built beside it (make build); `logbook window`
// (or `logbook` alone) hands over to it.
const desktopBuild = false

// desktopCompanion is the window binary's name, looked for beside this one.
const desktopCompanion = "logbook-desktop"

// companionPath returns the desktop binary beside this executable, or "".
func companionPath() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	p := filepath.Join(filepath.Dir(self), desktopCompanion)
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
		return p
	}
	return ""
}

// runWindow hands the window over to the desktop binary beside this one, in this
// process (exec), with the same data directory and options.
func runWindow(_ context.Context, e *env, o uiOptions) error {
	p := companionPath()
	if p == "" {
		return errors.New(noWindowHint)
	}
	args := []string{p, "--data", e.dataDir, "window"}
	if o.noImport {
		args = append(args, "--no-import")
	}
	if o.noFollow {
		args = append(args, "--no-follow")
	}
	if o.demoIfEmpty {
		args = append(args, "--demo-if-empty")
	}
	return syscall.Exec(p, args, os.Environ())
}

// hasWindow reports whether `logbook` alone can open the window.
func hasWindow() bool { return companionPath() != "" }
