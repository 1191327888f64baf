package dsh

import (
	"fmt"
)

// HeaderOptions tunes header validation.
type HeaderOptions struct {
	// Lenient accepts headers without delegationDepth (pre-rc writers and dsh's own web
	// fixtures), defaulting it to 0 and reporting a KindLenientHeader warning.
	Lenient bool
}

// ParseHeader decodes and validates the physical header line (without its newline)
// exactly as the frozen V0 codec does. The version is checked before anything else so
// that a file from a newer harness is "unsupported", never "corrupt". The returned
// warning is non-nil only in lenient mode.
func ParseHeader(line []byte, opts HeaderOptions) (*Header, *Problem, *Problem) {
	bad := func(format string, args ...any) (*Header, *Problem, *Problem) {
		return nil, &Problem{Kind: KindBadHeader, Line: 1, Offset: 0,
			Message: "header line 1: " + fmt.Sprintf(format, args...)}, nil
	}
	if !validJSON(line) {
		return bad("not valid JSON")
	}
	var version []byte
	isObject := eachMember(line, func(k, v []byte) error {
		if string(k) == "version" {
			version = v
		}
		return nil
	}) == nil
	if !isObject {
		return bad("expected a JSON object, got %s", jsonKind(line[skipSpace(line, 0):]))
	}
	if version != nil && jsonKind(version) == "a number" {
		if n, negZero, ok := safeInt(version); !ok || n != 0 || negZero {
			msg := fmt.Sprintf("unsupported session format version %s", version)
			if ok && n > 0 {
				msg += ": written by a newer harness; this Logbook reads version 0"
			} else {
				msg += ": no upgrade path to version 0"
			}
			return nil, &Problem{Kind: KindUnsupportedVersion, Line: 1, Offset: 0, Message: msg}, nil
		}
	}

	h := &Header{Raw: line}
	seen := map[string]bool{}
	var problem string
	err := eachMember(line, func(k, v []byte) error {
		key := string(k)
		if seen[key] {
			problem = fmt.Sprintf("duplicate key %q", key)
			return errNotObject
		}
		seen[key] = true
		str := func(dst *string) {
			s, ok := jsonString(v)
			if !ok {
				problem = fmt.Sprintf("%q must be a string, got %s", key, jsonKind(v))
			}
			*dst = s
		}
		num := func(dst *int64) {
			n, ok := nonNegInt(v)
			if !ok {
				problem = fmt.Sprintf("%q must be a non-negative safe integer, got %s", key, v)
			}
			*dst = n
		}
		switch key {
		case "type":
			if s, ok := jsonString(v); !ok || s != "session" {
				problem = fmt.Sprintf(`"type" must be "session", got %s`, v)
			}
		case "version":
			if jsonKind(v) != "a number" {
				problem = fmt.Sprintf(`"version" must be a number, got %s`, jsonKind(v))
			}
		case "id":
			str(&h.ID)
		case "createdAt":
			num(&h.CreatedAt)
		case "cwd":
			str(&h.Cwd)
			h.HasCwd = true
		case "parentSession":
			str(&h.ParentSession)
		case "seedLength":
			num(&h.SeedLength)
			h.IsSeeded = true
		case "origin":
			str(&h.Origin)
			if problem == "" && h.Origin != "subagent" {
				problem = fmt.Sprintf(`"origin" may only be "subagent", got %q`, h.Origin)
			}
		case "delegationDepth":
			num(&h.DelegationDepth)
		case "agentPreset":
			str(&h.AgentPreset)
		case "sandboxMode", "approvalPolicy":
			problem = fmt.Sprintf("session header uses retired policy baseline field %q", key)
		default:
			problem = fmt.Sprintf("unexpected key %q", key)
		}
		if problem != "" {
			return errNotObject
		}
		return nil
	})
	if problem != "" {
		return bad("%s", problem)
	}
	if err != nil {
		return bad("%v", err)
	}
	for _, k := range []string{"type", "version", "id", "createdAt"} {
		if !seen[k] {
			return bad("missing required key %q", k)
		}
	}
	if h.ID == "" {
		return bad(`"id" must not be empty`)
	}
	var warn *Problem
	if !seen["delegationDepth"] {
		if !opts.Lenient {
			return bad(`missing required key "delegationDepth" (written by a pre-release harness; import with lenient headers to accept it)`)
		}
		warn = &Problem{Kind: KindLenientHeader, Line: 1, Offset: 0,
			Message: `header line 1 has no "delegationDepth" (pre-release writer); assumed 0`}
	}
	return h, nil, warn
}
