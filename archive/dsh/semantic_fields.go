package dsh

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The checks of the most frequent events read a few fields of their data. Read
// with encoding/json, which validates the whole data and decodes by reflection,
// that cost more than the rest of a small session's checks: these read the same
// fields with the package's scanner. Each reports false for any data whose
// decoding by encoding/json they do not mirror exactly (a key that matches a
// field only case-insensitively, a value of another type, a string that is not
// valid UTF-8); the caller then decodes the data with decode, as before.

var errFieldsFallback = errors.New("fields: decode with encoding/json")

// plainMembers calls fn with each member of the JSON object b whose key is exactly
// one of names. It returns false when b is not a valid JSON object, when a key
// matches one of names otherwise than exactly (encoding/json matches keys
// case-insensitively), or when fn returns false.
func plainMembers(b []byte, names []string, fn func(name string, val []byte) bool) bool {
	if !validJSON(b) {
		return false
	}
	err := eachMember(b, func(key, val []byte) error {
		for _, n := range names {
			if string(key) == n {
				if !fn(n, val) {
					return errFieldsFallback
				}
				return nil
			}
			if foldsTo(key, n) {
				return errFieldsFallback
			}
		}
		return nil
	})
	return err == nil
}

// foldsTo reports whether encoding/json could match key to the field name
// (ASCII, lower case) otherwise than exactly; any key that is not ASCII might.
func foldsTo(key []byte, name string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	return strings.EqualFold(string(key), name)
}

// setString decodes a JSON string into *s, leaving it as it is for null, as
// encoding/json does for a string field.
func setString(val []byte, s *string) bool {
	if string(val) == "null" {
		return true
	}
	v, ok := plainString(val)
	if ok {
		*s = v
	}
	return ok
}

// setStringPtr decodes a JSON string into a new *s, or nil for null, as
// encoding/json does for a *string field.
func setStringPtr(val []byte, s **string) bool {
	if string(val) == "null" {
		*s = nil
		return true
	}
	v, ok := plainString(val)
	if ok {
		*s = &v
	}
	return ok
}

// plainString is a JSON string's value, when it is valid UTF-8 (encoding/json
// replaces invalid bytes).
func plainString(val []byte) (string, bool) {
	s, ok := jsonString(val)
	return s, ok && utf8.ValidString(s)
}

// messageSourceFields reads a messageSource object into src.
func messageSourceFields(val []byte, src *messageSource) bool {
	if string(val) == "null" {
		return true
	}
	return plainMembers(val, []string{"kind", "plugin", "compactionId", "sourceCommandId"}, func(name string, v []byte) bool {
		switch name {
		case "kind":
			return setString(v, &src.Kind)
		case "plugin":
			return setString(v, &src.Plugin)
		case "compactionId":
			return setStringPtr(v, &src.CompactionID)
		default:
			return setStringPtr(v, &src.SourceCommandID)
		}
	})
}

// userMessageFields reads what observeUserMessage checks of a user/message's data.
func userMessageFields(data []byte, id **string, src *messageSource) bool {
	return plainMembers(data, []string{"id", "source"}, func(name string, v []byte) bool {
		if name == "id" {
			return setStringPtr(v, id)
		}
		return messageSourceFields(v, src)
	})
}

// titleFields reads what observeTitle checks of a title event's data.
func titleFields(data []byte, seqs *[]int64, kind *string) bool {
	return plainMembers(data, []string{"messageSeqs", "source"}, func(name string, v []byte) bool {
		if name == "source" {
			if string(v) == "null" {
				return true
			}
			return plainMembers(v, []string{"kind"}, func(_ string, k []byte) bool { return setString(k, kind) })
		}
		if string(v) == "null" {
			*seqs = nil
			return true
		}
		out := []int64{}
		ok := eachElement(v, func(e []byte) error {
			n, err := strconv.ParseInt(string(e), 10, 64)
			if err != nil {
				return errFieldsFallback // not an integer (1.5, 1e3, a string…)
			}
			out = append(out, n)
			return nil
		}) == nil
		*seqs = out
		return ok
	})
}
