//go:build bindings

package main

// `wails generate module` builds the program with -tags bindings (dropping desktop
// and production) and runs it, so that wails.Run writes frontend/wailsjs instead
// of opening a window. That run must not touch the user's archive.
func init() { generatingBindings = true }
