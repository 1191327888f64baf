package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// The command line is one tree of commands (the table in main.go): dispatch, the
// usage text, `logbook help [COMMAND...]` and each command's -h are all made from
// it, so a command is added in one place. A command with sub-commands (a group,
// such as a future `logbook sync push|pull`) dispatches its first argument through
// the same code as the top level. A command that runs can take sub-commands too
// (a future `logbook export bundle …` beside `logbook export SESSION`): a first
// argument that names one goes to it, anything else to the command itself.

// command is one command of the CLI: a leaf that runs, a group whose first
// argument names one of its sub-commands, or both.
type command struct {
	name    string
	args    string // what follows the name on a usage line: "[--json] SESSION"; a group's defaults to "COMMAND [ARGS]"
	summary string // one line for the lists of commands and the top of its help
	doc     string // a group's note between its usage line and its commands (optional)
	// run runs the command on its arguments. It parses them with parseFlags
	// before doing anything, so that -h (and `logbook help NAME`) prints its usage
	// without running it. Its error decides the exit status (see dispatch):
	// usageError 2, exitError its own, helpError 0 and any other 1.
	run func(ctx context.Context, e *env, args []string) error
	sub []command // its sub-commands, in the order help lists them
}

// argsLine is what follows the command's name on its usage line.
func (c command) argsLine() string {
	if c.args == "" && c.sub != nil && c.run == nil {
		return "COMMAND [ARGS]"
	}
	return c.args
}

// usageLine is the command's name and arguments, as a usage line shows them.
func (c command) usageLine() string {
	if a := c.argsLine(); a != "" {
		return c.name + " " + a
	}
	return c.name
}

// lookup returns the command of cmds named name.
func lookup(cmds []command, name string) (command, bool) {
	for _, c := range cmds {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// helpCommand is the usage line of the help every group answers to (it is not in
// the table: dispatch handles it, for the top level and every group alike).
const helpCommand = "help [COMMAND]"

// dispatch runs the command of group g that args name, and returns the exit
// status. path is the command line up to g ("logbook", "logbook sync"). Besides
// its commands, a group answers -h, --help and `help [COMMAND...]` with usage
// on standard output; an unknown command, or none, prints the usage on standard
// error (status 2).
func dispatch(ctx context.Context, e *env, path string, g command, args []string) int {
	if len(args) == 0 {
		printGroupUsage(e.stderr, path, g)
		return 2
	}
	switch name := args[0]; {
	case name == "-h" || name == "--help" || name == "-help":
		printGroupUsage(e.stdout, path, g)
		return 0
	case name == "help":
		return help(ctx, e, path, g, args[1:])
	}
	c, ok := lookup(g.sub, args[0])
	if !ok {
		fmt.Fprintf(e.stderr, "%s: unknown command %q\n", path, args[0])
		printGroupUsage(e.stderr, path, g)
		return 2
	}
	rest := args[1:]
	if c.sub != nil && (c.run == nil || len(rest) > 0 && hasSub(c, rest[0])) {
		return dispatch(ctx, e, path+" "+c.name, c, rest)
	}
	return runLeaf(ctx, e, path, c, rest)
}

// hasSub reports whether c has a sub-command named name.
func hasSub(c command, name string) bool {
	_, ok := lookup(c.sub, name)
	return ok
}

// runLeaf runs a command on its arguments and turns what it returns into the exit
// status and the messages of the whole CLI.
func runLeaf(ctx context.Context, e *env, path string, c command, args []string) int {
	err := c.run(ctx, e, args)
	if err == nil {
		return 0
	}
	var he helpError
	if errors.As(err, &he) {
		fmt.Fprintf(e.stdout, "usage: %s %s\n\n%s\n", path, c.usageLine(), c.summary)
		he.fs.SetOutput(e.stdout)
		he.fs.PrintDefaults()
		if c.sub != nil {
			fmt.Fprintln(e.stdout, "\ncommands:")
			printCommands(e.stdout, c.sub, false)
		}
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(e.stderr, "%s %s: %s\nusage: %s %s\n", path, c.name, termSafe(err.Error()), path, c.usageLine())
		return 2
	}
	var ee exitError
	if errors.As(err, &ee) {
		return int(ee)
	}
	fmt.Fprintf(e.stderr, "%s %s: %s\n", path, termSafe(c.name), termSafe(err.Error()))
	return 1
}

// help answers `help [COMMAND...]` in group g: the group's usage, a sub-group's,
// or a command's (as its -h prints it), on standard output.
func help(ctx context.Context, e *env, path string, g command, args []string) int {
	for len(args) > 0 {
		c, ok := lookup(g.sub, args[0])
		if !ok {
			fmt.Fprintf(e.stderr, "%s help: unknown command %q\n", path, args[0])
			printGroupUsage(e.stderr, path, g)
			return 2
		}
		if c.sub == nil || c.run != nil && len(args) == 1 {
			return runLeaf(ctx, e, path, c, []string{"-h"})
		}
		path, g, args = path+" "+c.name, c, args[1:]
	}
	printGroupUsage(e.stdout, path, g)
	return 0
}

// printGroupUsage prints a group's usage: what it is, its usage line, its note,
// then its commands in table order and the help command.
func printGroupUsage(w io.Writer, path string, g command) {
	title := path
	if !strings.Contains(path, " ") {
		title += " " + version // the top level says which version this is
	}
	fmt.Fprintf(w, "%s: %s\n\n", title, g.summary)
	fmt.Fprintf(w, "usage: %s %s\n", path, g.argsLine())
	if g.doc != "" {
		fmt.Fprintf(w, "\n%s\n", g.doc)
	}
	fmt.Fprintln(w, "\ncommands:")
	printCommands(w, g.sub, true)
}

// printCommands lists cmds in table order, one usage line and summary each, then
// (withHelp) the help command of a group.
func printCommands(w io.Writer, cmds []command, withHelp bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range cmds {
		fmt.Fprintf(tw, "  %s\t%s\n", c.usageLine(), c.summary)
	}
	if withHelp {
		fmt.Fprintf(tw, "  %s\t%s\n", helpCommand, "print the usage of a command, or of all of them")
	}
	tw.Flush()
}

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ error }

// exitError ends the process with a status after the command printed its output.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// helpError is a request for a command's help (-h, --help): its usage and flags are
// printed to standard output and the exit status is 0.
type helpError struct{ fs *flag.FlagSet }

func (h helpError) Error() string { return flag.ErrHelp.Error() }

// parseFlags parses flags wherever they appear among the positional arguments
// (`export ID -o f` and `export -o f ID` both work) and returns the positionals.
// Everything after a "--" is positional.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpError{fs}
			}
			return nil, usageError{err}
		}
		rest := fs.Args()
		// flag.Parse swallows a terminating "--"; once it did, the rest is positional.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" && !flagTakesValue(fs, args[:n-1]) {
			return append(pos, rest...), nil
		}
		args = rest
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// flagTakesValue reports whether the last of the parsed args is a flag still waiting
// for its value (so a "--" after it is that value, not the end of the flags).
func flagTakesValue(fs *flag.FlagSet, parsed []string) bool {
	if len(parsed) == 0 {
		return false
	}
	last := parsed[len(parsed)-1]
	if !strings.HasPrefix(last, "-") || last == "-" || last == "--" || strings.Contains(last, "=") {
		return false
	}
	f := fs.Lookup(strings.TrimLeft(last, "-"))
	if f == nil {
		return false
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return false
	}
	return true
}

// flagSet reports whether the command line named the flag.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// writeJSON prints v as indented JSON, without HTML escapes: the --json output.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
