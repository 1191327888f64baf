package main

import (
	"context"
	"flag"
	"fmt"
)

// cmdWindow opens the desktop window (a desktop build; see desktop.go).
func cmdWindow(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("window", flag.ContinueOnError)
	var o uiOptions
	o.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", pos[0])}
	}
	return runWindow(ctx, e, o)
}
