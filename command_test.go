package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// walk calls fn for every command of the tree below g, with its command line.
func walk(path string, g command, fn func(path string, c command)) {
	for _, c := range g.sub {
		fn(path, c)
		walk(path+" "+c.name, c, fn)
	}
}

func TestCommandTable(t *testing.T) {
	names := map[string]bool{}
	walk(root.name, root, func(path string, c command) {
		full := path + " " + c.name
		assert.NotEmpty(t, c.name, "a command under %s has no name", path)
		assert.NotEmpty(t, c.summary, "%s has no summary", full)
		assert.NotEqual(t, "help", c.name, "%s: every group answers help itself", full)
		assert.False(t, names[full], "%s is in the table twice", full)
		names[full] = true
		assert.True(t, c.run != nil || c.sub != nil, "%s must run or have sub-commands", full)
	})
	assert.Len(t, names, 28)
}

func TestHelpListsTheTableInOrder(t *testing.T) {
	r := cli(t, "help")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	assert.Equal(t, cli(t, "--help").stdout, r.stdout, "help and --help say the same")
	last := -1
	for _, c := range root.sub {
		i := strings.Index(r.stdout, "\n  "+c.usageLine()+"  ")
		require.Positive(t, i, "help lists %s", c.name)
		assert.Greater(t, i, last, "%s is listed in table order", c.name)
		last = i
	}
	assert.Greater(t, strings.Index(r.stdout, "\n  "+helpCommand), last, "help comes last")
}

func TestHelpCommand(t *testing.T) {
	data := t.TempDir()
	for _, c := range root.sub {
		t.Run(c.name, func(t *testing.T) {
			r := cliData(t, data, "help", c.name)
			require.Equal(t, 0, r.code, r.stderr)
			want := "usage: logbook " + c.usageLine() + "\n\n" + c.summary + "\n"
			if c.run == nil { // a group: its usage, as the top level prints its own
				want = "logbook " + c.name + ": " + c.summary + "\n\nusage: logbook " + c.usageLine() + "\n"
			}
			assert.True(t, strings.HasPrefix(r.stdout, want), r.stdout)
			assert.Equal(t, cliData(t, data, c.name, "-h"), r, "help NAME is NAME -h")
		})
	}
	t.Run("ErrUnknown", func(t *testing.T) {
		r := cliData(t, data, "help", "frobnicate")
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stderr, `logbook help: unknown command "frobnicate"`)
		assert.Empty(t, r.stdout)
	})
}

// remote is a test-only group of commands, to prove a nested table dispatches and
// helps like the top level: `logbook remote add [--force] NAME`, `logbook remote
// keys list`, and `logbook remote get NAME` beside `logbook remote get all`.
var remote = command{
	name:    "remote",
	summary: "manage remotes (test only)",
	sub: []command{
		{name: "add", args: "[--force] NAME", summary: "add a remote", run: func(ctx context.Context, e *env, args []string) error {
			fs := flag.NewFlagSet("remote add", flag.ContinueOnError)
			force := fs.Bool("force", false, "replace a remote of that name")
			pos, err := parseFlags(fs, args)
			if err != nil {
				return err
			}
			switch {
			case len(pos) != 1:
				return usageError{errors.New("name one remote")}
			case pos[0] == "taken" && !*force:
				return fmt.Errorf("remote %s exists", pos[0])
			case pos[0] == "partial":
				fmt.Fprintln(e.stdout, "added some")
				return exitError(3)
			}
			fmt.Fprintf(e.stdout, "added %s (force %v)\n", pos[0], *force)
			return nil
		}},
		{name: "keys", summary: "the remotes' keys", sub: []command{
			{name: "list", summary: "list the keys", run: func(ctx context.Context, e *env, args []string) error {
				if _, err := parseFlags(flag.NewFlagSet("remote keys list", flag.ContinueOnError), args); err != nil {
					return err
				}
				fmt.Fprintln(e.stdout, "key1")
				return nil
			}},
		}},
		{name: "get", args: "[--long] NAME", summary: "print a remote", run: func(ctx context.Context, e *env, args []string) error {
			fs := flag.NewFlagSet("remote get", flag.ContinueOnError)
			fs.Bool("long", false, "print all of it")
			pos, err := parseFlags(fs, args)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "got %v\n", pos)
			return nil
		}, sub: []command{
			{name: "all", summary: "print every remote", run: func(ctx context.Context, e *env, args []string) error {
				if _, err := parseFlags(flag.NewFlagSet("remote get all", flag.ContinueOnError), args); err != nil {
					return err
				}
				fmt.Fprintln(e.stdout, "got all")
				return nil
			}},
		}},
	},
}

func TestNestedCommands(t *testing.T) {
	tree := command{name: "logbook", args: "COMMAND", summary: "test tree", sub: []command{remote}}
	run := func(args ...string) result {
		var out, errOut bytes.Buffer
		e := newEnv(&out, &errOut)
		e.dataDir = t.TempDir()
		code := dispatch(context.Background(), e, "logbook", tree, args)
		return result{code: code, stdout: out.String(), stderr: errOut.String()}
	}
	groupUsage := "logbook remote: manage remotes (test only)\n\nusage: logbook remote COMMAND [ARGS]\n\ncommands:\n" +
		"  add [--force] NAME   add a remote\n" +
		"  keys COMMAND [ARGS]  the remotes' keys\n" +
		"  get [--long] NAME    print a remote\n" +
		"  help [COMMAND]       print the usage of a command, or of all of them\n"

	tests := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string // each must contain it ("" for empty)
	}{
		{"OK", []string{"remote", "add", "origin", "--force"}, 0, "added origin (force true)\n", ""},
		{"OK: two levels down", []string{"remote", "keys", "list"}, 0, "key1\n", ""},
		{"ExitStatus", []string{"remote", "add", "partial"}, 3, "added some\n", ""},
		{"Err", []string{"remote", "add", "taken"}, 1, "", "logbook remote add: remote taken exists\n"},
		{"ErrUsage", []string{"remote", "add"}, 2, "", "logbook remote add: name one remote\nusage: logbook remote add [--force] NAME\n"},
		{"ErrFlag", []string{"remote", "add", "--bogus", "x"}, 2, "", "usage: logbook remote add [--force] NAME\n"},
		{"ErrUnknown", []string{"remote", "frob"}, 2, "", "logbook remote: unknown command \"frob\"\n" + groupUsage},
		{"ErrNoCommand", []string{"remote"}, 2, "", groupUsage},
		{"Help: group", []string{"remote", "--help"}, 0, groupUsage, ""},
		{"Help: group by help", []string{"help", "remote"}, 0, groupUsage, ""},
		{"Help: leaf", []string{"remote", "add", "-h"}, 0, "usage: logbook remote add [--force] NAME\n\nadd a remote\n  -force\n", ""},
		{"Help: leaf by help", []string{"help", "remote", "add"}, 0, "usage: logbook remote add [--force] NAME\n\nadd a remote\n  -force\n", ""},
		{"Help: leaf by the group's help", []string{"remote", "help", "add"}, 0, "usage: logbook remote add [--force] NAME\n", ""},
		{"Help: nested group", []string{"help", "remote", "keys"}, 0, "usage: logbook remote keys COMMAND [ARGS]\n\ncommands:\n  list            list the keys\n  help [COMMAND]", ""},
		{"Help: deepest leaf", []string{"remote", "keys", "list", "--help"}, 0, "usage: logbook remote keys list\n\nlist the keys\n", ""},
		{"OK: a command with sub-commands runs", []string{"remote", "get", "origin"}, 0, "got [origin]\n", ""},
		{"OK: its sub-command", []string{"remote", "get", "all"}, 0, "got all\n", ""},
		{"OK: a flag first is the command's", []string{"remote", "get", "--long", "all"}, 0, "got [all]\n", ""},
		{"Help: a command with sub-commands", []string{"remote", "get", "-h"}, 0, "usage: logbook remote get [--long] NAME\n\nprint a remote\n  -long\n    \tprint all of it\n\ncommands:\n  all  print every remote\n", ""},
		{"Help: a command with sub-commands by help", []string{"help", "remote", "get"}, 0, "usage: logbook remote get [--long] NAME\n", ""},
		{"Help: its sub-command by help", []string{"help", "remote", "get", "all"}, 0, "usage: logbook remote get all\n\nprint every remote\n", ""},
		{"ErrHelpUnknown", []string{"help", "remote", "frob"}, 2, "", "logbook remote help: unknown command \"frob\"\n" + groupUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(tt.args...)
			assert.Equal(t, tt.code, r.code, "stderr: %s", r.stderr)
			for _, want := range []struct{ got, want, name string }{{r.stdout, tt.stdout, "stdout"}, {r.stderr, tt.stderr, "stderr"}} {
				if want.want == "" {
					assert.Empty(t, want.got, want.name)
				} else {
					assert.Contains(t, want.got, want.want, want.name)
				}
			}
		})
	}
}
