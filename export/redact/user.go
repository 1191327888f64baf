package redact

import (
	"os"
	"os/user"
	"strings"
)

// WithCurrentUser returns o with the current user's home directory and login name
// added, and the parts of their full name, so that exports do not carry them. What
// the system does not say is left out.
func WithCurrentUser(o Options) Options {
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		o.HomeDirs = append(o.HomeDirs, h)
	}
	if u, err := user.Current(); err == nil {
		// Windows logins look like DOMAIN\name.
		o.UserNames = append(o.UserNames, u.Username[strings.LastIndexAny(u.Username, `\`)+1:])
		o.UserNames = append(o.UserNames, strings.FieldsFunc(u.Name, func(r rune) bool {
			return r == ' ' || r == ',' || r == '.'
		})...)
	}
	return o
}
