//go:build !desktop && !bindings

package main

import (
	"context"
	"errors"
)

// desktopBuild is false: this binary was built without the Wails window (no
// desktop tag), so it needs no GTK or WebKit; `logbook serve` is its UI.
const desktopBuild = false

func runWindow(context.Context, *env, uiOptions) error { return errors.New(noWindowHint) }
