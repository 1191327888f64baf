package dsh

import (
	"errors"
	"unicode/utf16"
)

// NoCwdDir is the project directory name dsh uses for sessions whose header has no cwd.
const NoCwdDir = "_no-cwd"

// maxProjectSlug is the number of characters of the escaped project slug kept before
// the "--" wrappers are added (dsh truncates to 251 so the name fits in 255 bytes).
const maxProjectSlug = 251

// ProjectKey returns the project directory name dsh derives from a session cwd
// (format.ts projectKey): per UTF-16 code unit, a run of '/', '\' or ':' becomes one
// '-', [A-Za-z0-9._-] stays literal and every other unit (including '~', non-ASCII
// characters and each half of a surrogate pair) becomes "~XXXX" in upper-case hex.
// Leading '-' are stripped, an empty slug becomes "root", the slug is cut to 251
// characters and wrapped as "--slug--". The mapping is lossy: never derive a cwd from
// it. dsh refuses an empty cwd; here it yields "--root--".
func ProjectKey(cwd string) string {
	units := utf16.Encode([]rune(cwd))
	out := make([]byte, 0, len(units)+8)
	inSeparators := false
	for _, u := range units {
		switch {
		case u == '/' || u == '\\' || u == ':':
			if !inSeparators {
				out = append(out, '-')
			}
			inSeparators = true
		case isSafeUnit(u):
			out = append(out, byte(u))
			inSeparators = false
		default:
			out = appendEscape(out, u)
			inSeparators = false
		}
	}
	i := 0
	for i < len(out) && out[i] == '-' {
		i++
	}
	slug := out[i:]
	if len(slug) == 0 {
		slug = []byte("root")
	}
	if len(slug) > maxProjectSlug {
		slug = slug[:maxProjectSlug]
	}
	return "--" + string(slug) + "--"
}

// EncodeSegment returns the injective single-path-segment encoding dsh uses for a
// session id (format.ts encodeSegment): [A-Za-z0-9._-] literal, every other UTF-16
// code unit "~XXXX", no separator folding, and the whole segments "." and ".."
// become "~002E" and "~002E~002E". An empty id is an error.
func EncodeSegment(id string) (string, error) {
	switch id {
	case "":
		return "", errors.New("dsh: cannot encode an empty path segment")
	case ".":
		return "~002E", nil
	case "..":
		return "~002E~002E", nil
	}
	units := utf16.Encode([]rune(id))
	out := make([]byte, 0, len(units))
	for _, u := range units {
		if isSafeUnit(u) {
			out = append(out, byte(u))
		} else {
			out = appendEscape(out, u)
		}
	}
	return string(out), nil
}

// isSafeUnit reports whether a UTF-16 code unit is kept literally ([A-Za-z0-9._-]).
func isSafeUnit(u uint16) bool {
	return u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9' ||
		u == '.' || u == '_' || u == '-'
}

// appendEscape appends "~XXXX" (upper-case hex) for one UTF-16 code unit.
func appendEscape(b []byte, u uint16) []byte {
	const hex = "0123456789ABCDEF"
	return append(b, '~', hex[u>>12], hex[u>>8&0xF], hex[u>>4&0xF], hex[u&0xF])
}
