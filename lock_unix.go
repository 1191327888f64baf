//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockDataDir takes the data directory's instance lock for a long-running process
// (the window, serve, the scheduler), so two of them never write the same archive
// or fire the same scheduled prompt twice. The lock is an flock on DATA/logbook.lock:
// the kernel drops it when the process dies, so a crash never leaves a stale lock.
// One-shot commands (import, search…) do not take it; SQLite serialises their
// writes with the running instance's.
func lockDataDir(dir, what string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	p := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open instance lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(p)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "another process"
			}
			return nil, fmt.Errorf("%s is already using the archive in %s; close it first, or use another --data directory", who, dir)
		}
		return nil, fmt.Errorf("take instance lock %s: %w", p, err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte("Logbook "+what+" (pid "+strconv.Itoa(os.Getpid())+")\n"), 0)
	return func() {
		_ = f.Truncate(0)
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// instanceHolder names the window, serve or scheduler holding the data
// directory's instance lock (as its lock file records it), or "" when none runs.
// It only tests the lock: a shared lock conflicts with the holder's exclusive one.
func instanceHolder(dir string) string {
	p := filepath.Join(dir, lockFile)
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err == nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return ""
	}
	b, _ := os.ReadFile(p)
	if who := strings.TrimSpace(string(b)); who != "" {
		return who
	}
	return "another Logbook"
}
