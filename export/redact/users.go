package redact

import (
	"regexp"
	"strings"
)

// homePathRe matches the user segment of home directories on Linux, macOS and Windows,
// with the doubled backslashes that JSON-escaped Windows paths carry.
var homePathRe = regexp.MustCompile(`(?i)(?:/home/|/Users/|[a-z]:(?:\\{1,2}|/)Users(?:\\{1,2}|/))([A-Za-z0-9._-]+)`)

// genericAccounts are user names of machines, not of people: CI runners, cloud images,
// containers. Their home paths are not personal.
var genericAccounts = map[string]bool{
	"runner": true, "ubuntu": true, "root": true, "user": true, "admin": true, "ec2-user": true,
	"vagrant": true, "node": true, "app": true, "linuxbrew": true, "shared": true, "public": true,
	"default": true, "all users": true, "username": true, "name": true, "me": true, "you": true,
	"guest": true, "debian": true, "centos": true, "fedora": true, "pi": true, "dev": true,
	"developer": true, "jovyan": true, "coder": true, "codespace": true, "vscode": true,
	"builder": true, "build": true, "docker": true, "git": true, "nobody": true, "test": true,
}

// homePathRule reports the user name in home-directory paths.
type homePathRule struct{}

func (homePathRule) find(text, lower string, out []match) []match {
	for _, seg := range windows(text, lower, []string{"/home/", "users"}, 4, 300, nil) {
		for _, m := range homePathRe.FindAllStringSubmatchIndex(text[seg.start:seg.end], -1) {
			s, e := seg.start+m[2], seg.start+m[3]
			if personalName(text[s:e]) {
				out = append(out, match{start: s, end: e, rule: "home-dir-user", cat: CategoryUser, prio: prioHost})
			}
		}
	}
	return out
}

// personalName reports whether a user name may identify a person.
func personalName(name string) bool {
	return len(name) >= 3 && !genericAccounts[strings.ToLower(name)] && !isPlaceholder(name) &&
		strings.Trim(name, ".") != ""
}

// nameRule reports known user names wherever they stand as a word, case-insensitively:
// names from Options, and names the home-path rule discovered in the same Scan.
type nameRule struct {
	names []string // lowercase, personal, unique
}

func newNameRule(names []string) *nameRule {
	seen := map[string]bool{}
	r := &nameRule{}
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		if personalName(n) && !seen[n] {
			seen[n] = true
			r.names = append(r.names, n)
		}
	}
	return r
}

func (r *nameRule) find(text, lower string, out []match) []match {
	hay := lower
	for _, n := range r.names {
		for i := 0; ; {
			j := strings.Index(hay[i:], n)
			if j < 0 {
				break
			}
			s, e := i+j, i+j+len(n)
			i = e
			if !standsAlone(hay, s, e) {
				continue
			}
			out = append(out, match{start: s, end: e, rule: "user-name", cat: CategoryUser, prio: prioName})
		}
	}
	return out
}

// isNameByte reports bytes that continue a word, so "al" is not found in "also".
func isNameByte(c byte) bool { return isAlnum(c) || c == '_' || c >= 0x80 }
