// Package redact finds secrets and personal data in session text before an export leaves
// the machine, and replaces the ones the person accepts with consistent placeholders.
//
// A Scanner runs gitleaks' default ruleset (as a library) plus Logbook's own rules for
// what agent logs carry: bearer tokens, .env dumps, private keys, credentials in URLs,
// e-mail addresses, home directories and user names, hosts and IP addresses. Scan
// returns a Report whose findings carry a masked preview and a keyed fingerprint, never
// the secret; the secrets stay inside the Report so that a Redactor built from it and a
// set of Decisions can rewrite the text. Nothing here writes anywhere: the archive is
// never changed.
package redact

import "errors"

// Category groups rules so that a person can switch a whole kind of finding on or off.
type Category string

// The categories. Every rule belongs to exactly one.
const (
	// CategoryToken is API keys and access tokens: gitleaks' default rules, sk-… keys, JWTs.
	CategoryToken Category = "token"
	// CategoryBearer is credentials in HTTP headers, as in curl -H "Authorization: Bearer …".
	CategoryBearer Category = "bearer"
	// CategoryEnv is values assigned to secret-looking names, as in .env dumps and configs.
	CategoryEnv Category = "env"
	// CategoryPrivateKey is PEM private key blocks.
	CategoryPrivateKey Category = "private-key"
	// CategoryConnection is passwords in connection strings and URLs, and secrets in query strings.
	CategoryConnection Category = "connection-string"
	// CategoryEmail is e-mail addresses.
	CategoryEmail Category = "email"
	// CategoryUser is user names: in home-directory paths, and configured or discovered names.
	CategoryUser Category = "user"
	// CategoryHost is IPv4 and IPv6 addresses and internal host names.
	CategoryHost Category = "host"
)

// Categories lists every category in display order.
var Categories = []Category{
	CategoryToken, CategoryBearer, CategoryEnv, CategoryPrivateKey,
	CategoryConnection, CategoryEmail, CategoryUser, CategoryHost,
}

// ErrDuplicateDoc is returned by Scan when two docs share an ID, because findings and
// redactions are addressed by doc ID.
var ErrDuplicateDoc = errors.New("redact: duplicate doc id")

// Doc is one piece of text to scan, such as one block of one message.
type Doc struct {
	// ID says where the text is, for example "session-2d7d/seq-41/tool-output". It must be
	// unique within one Scan.
	ID string `json:"id"`
	// Text is the content.
	Text string `json:"text"`
}

// Finding is one detected secret. It never holds the secret itself.
type Finding struct {
	// ID identifies the finding within its Report, for accept and reject decisions. It is
	// derived from the doc ID, the position and the rule, so a re-scan of the same input
	// gives the same IDs.
	ID string `json:"id"`
	// Doc is the ID of the Doc the finding is in.
	Doc string `json:"doc"`
	// Category is the switchable group of the rule.
	Category Category `json:"category"`
	// Rule is the rule that matched: a gitleaks rule ID or one of ours.
	Rule string `json:"rule"`
	// Start and End are the byte offsets of the secret in the Doc's text.
	Start int `json:"start"`
	End   int `json:"end"`
	// Line is the 1-based line of Start.
	Line int `json:"line"`
	// Masked is the secret with most of it hidden, such as "sk-p…a1b2".
	Masked string `json:"masked"`
	// Preview is the text around the finding with this and every other finding masked.
	Preview string `json:"preview"`
	// Fingerprint is a keyed hash of the secret: equal secrets have equal fingerprints
	// within one Scanner, and it cannot be reversed without the Scanner's key.
	Fingerprint string `json:"fingerprint"`

	secret string
}

// Report is the result of one Scan, in a stable order: docs in input order, then by
// position. It keeps the secrets (unexported) so that Redactor can replace them.
type Report struct {
	// Findings are all findings.
	Findings []Finding `json:"findings"`
	// Counts are the number of findings per category.
	Counts map[Category]int `json:"counts"`
	// Docs and Bytes say how much was scanned.
	Docs  int   `json:"docs"`
	Bytes int64 `json:"bytes"`
	// Ruleset names the rules that ran, for the record in the exported file.
	Ruleset string `json:"ruleset"`
}
