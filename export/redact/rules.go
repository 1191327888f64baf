package redact

import (
	"math"
	"regexp"
	"strings"
)

// match is one raw detection before overlaps are resolved.
type match struct {
	start, end int
	rule       string
	cat        Category
	prio       int // breaks ties between overlapping matches of equal length
}

// detector finds matches in one text. lower is strings.ToLower(text), shared by all
// detectors for keyword prefiltering; it has the same byte offsets for ASCII keywords.
type detector interface {
	find(text, lower string, out []match) []match
}

// Priorities decide between overlapping matches: the more specific rule wins, and the
// longer match between equals. A private key block holds everything inside it; a known
// key format beats the URL or assignment it sits in; those beat the e-mail-like
// "pass@host" they contain; and names found by value come last.
const (
	prioName       = 1 // configured and discovered user names
	prioGeneric    = 2 // gitleaks' generic-api-key
	prioHost       = 3 // hosts, IPs, home-directory users
	prioEmail      = 4
	prioAssignment = 5 // env, assignments, query strings, curl -u
	prioCredential = 6 // URL passwords, bearer tokens, headers
	prioKeyFormat  = 7 // our sk-… and JWT rules
	prioGitleaks   = 8 // gitleaks' specific rules
	prioPrivateKey = 9
)

// regexRule is one of our rules: a regexp that runs only when a keyword is present.
type regexRule struct {
	id       string
	cat      Category
	keywords []string                            // lowercase anchors; the rule runs around them, or everywhere if none
	before   int                                 // bytes before an anchor the match may start (default 64)
	after    int                                 // bytes after an anchor the match may end (default 512)
	keep     func(text string, at, end int) bool // optional: whether an anchor is worth a look
	re       *regexp.Regexp
	group    int // the capture group that holds the secret
	prio     int
	valid    func(string) bool     // nil means every match counts
	ruleFor  func([]string) string // optional: rule ID from the submatches
}

func (r *regexRule) find(text, lower string, out []match) []match {
	segs := []span{{0, len(text)}}
	if len(r.keywords) > 0 {
		before, after := r.before, r.after
		if before == 0 && after == 0 {
			before, after = 64, 512
		}
		var keep func(at, end int) bool
		if r.keep != nil {
			keep = func(at, end int) bool { return r.keep(text, at, end) }
		}
		segs = windows(text, lower, r.keywords, before, after, keep)
	}
	for _, seg := range segs {
		out = r.findIn(text, seg, out)
	}
	return out
}

// findIn runs the rule on text[seg.start:seg.end].
func (r *regexRule) findIn(text string, seg span, out []match) []match {
	for _, m := range r.re.FindAllStringSubmatchIndex(text[seg.start:seg.end], -1) {
		for i := range m {
			if m[i] >= 0 {
				m[i] += seg.start
			}
		}
		s, e := m[2*r.group], m[2*r.group+1]
		if s < 0 || s == e {
			continue
		}
		secret := text[s:e]
		if isPlaceholder(secret) || (r.valid != nil && !r.valid(secret)) {
			continue
		}
		id := r.id
		if r.ruleFor != nil {
			sub := make([]string, len(m)/2)
			for i := range sub {
				if m[2*i] >= 0 {
					sub[i] = text[m[2*i]:m[2*i+1]]
				}
			}
			id = r.ruleFor(sub)
		}
		out = append(out, match{start: s, end: e, rule: id, cat: r.cat, prio: r.prio})
	}
	return out
}

// assignmentAfter reports whether a name continuing past end (up to 40 more name
// characters and a closing quote) is followed by one of ops and, if quoted, by an opening
// quote: the shape "KEY=value" or "key": "value" needs before a regexp is worth running.
func assignmentAfter(text string, end int, ops string, quoted bool) bool {
	j := end
	for j < len(text) && j < end+42 && (isAlnum(text[j]) || strings.IndexByte("_.-", text[j]) >= 0) {
		j++
	}
	for j < len(text) && strings.IndexByte("\"' \t", text[j]) >= 0 && j < end+46 {
		j++
	}
	if j >= len(text) || strings.IndexByte(ops, text[j]) < 0 {
		return false
	}
	if !quoted {
		return true
	}
	for j++; j < len(text) && (text[j] == ' ' || text[j] == '\t'); j++ {
	}
	return j < len(text) && (text[j] == '"' || text[j] == '\'')
}

// envAssignment keeps anchors in an upper-case name followed by "=".
func envAssignment(text string, at, end int) bool {
	return strings.ToUpper(text[at:end]) == text[at:end] && assignmentAfter(text, end, "=", false)
}

// quotedAssignment keeps anchors followed by ":" or "=" and a quoted value.
func quotedAssignment(text string, _, end int) bool {
	return assignmentAfter(text, end, ":=", true)
}

// passwordIs keeps "pass…" words followed by " is", " was", "=" or ":".
func passwordIs(text string, _, end int) bool {
	j := end
	for j < len(text) && j < end+6 && isAlnum(text[j]) {
		j++
	}
	rest := text[j:min(len(text), j+5)]
	return strings.HasPrefix(rest, " is ") || strings.HasPrefix(rest, " was ") ||
		strings.HasPrefix(strings.TrimLeft(rest, " "), "=") || strings.HasPrefix(strings.TrimLeft(rest, " "), ":")
}

// placeholderWords mark example values that documentation and prompts are full of.
var placeholderWords = []string{
	"[redacted", "redacted", "your", "example", "xxxx", "****", "<", ">", "${", "$(", "{{",
	"placeholder", "changeme", "dummy", "sample", "...", "…",
}

// shellVarRe matches references to variables: $NAME, ${…}, $(…), %NAME%.
var shellVarRe = regexp.MustCompile(`^(?:\$[A-Za-z_][A-Za-z0-9_]*$|\$[{(]|%[A-Za-z_][A-Za-z0-9_]*%$)`)

// isPlaceholder reports values that stand for a secret rather than being one, including
// our own placeholders so that a re-scan of redacted text stays quiet.
func isPlaceholder(s string) bool {
	if shellVarRe.MatchString(s) {
		return true
	}
	l := strings.ToLower(s)
	for _, w := range placeholderWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var n [256]int
	for i := 0; i < len(s); i++ {
		n[s[i]]++
	}
	var h float64
	for _, c := range n {
		if c > 0 {
			p := float64(c) / float64(len(s))
			h -= p * math.Log2(p)
		}
	}
	return h
}

// hasDigit reports whether s contains an ASCII digit.
func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// credentialValue accepts passwords and tokens: not a bare lowercase word or an
// identifier-looking call, which is what code assigning secret-named variables holds.
func credentialValue(s string) bool {
	if len(s) < 6 || strings.ContainsAny(s, "()") {
		return false
	}
	if hasDigit(s) || strings.ContainsAny(s, "!#%&*+/=?@^~-") {
		return true
	}
	return len(s) >= 12 && entropy(s) > 3
}

// tokenValue accepts strings that look generated: long enough, mixed, high entropy.
func tokenValue(s string) bool {
	return len(s) >= 16 && hasDigit(s) && entropy(s) > 3
}

// dbSchemes are URL schemes whose credentials are database or broker passwords.
var dbSchemes = map[string]bool{
	"postgres": true, "postgresql": true, "mysql": true, "mariadb": true, "mongodb": true,
	"mongodb+srv": true, "redis": true, "rediss": true, "amqp": true, "amqps": true,
	"mssql": true, "sqlserver": true, "clickhouse": true, "cockroachdb": true, "nats": true,
	"kafka": true, "ldap": true, "ldaps": true, "jdbc:postgresql": true, "jdbc:mysql": true,
}

// ownRules builds our regexp rules. Secrets are the capture group, so a placeholder
// replaces the password and leaves the story around it ("postgres://app:[…]@db").
func ownRules() []detector {
	return []detector{
		&regexRule{
			id: "bearer-token", prio: prioCredential, cat: CategoryBearer, keywords: []string{"bearer"},
			before: 1, after: 2000,
			re:    regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`),
			group: 1, valid: credentialValue,
		},
		&regexRule{
			id: "auth-header", prio: prioCredential, cat: CategoryBearer,
			before: 8, after: 2000,
			keywords: []string{"authorization", "api-key", "auth-token", "private-token", "api_key"},
			re:       regexp.MustCompile(`(?i)\b(?:authorization|x-api-key|api-key|x-auth-token|private-token|x-goog-api-key|x-api_key)\s*:\s*(?:token\s+|basic\s+)?([A-Za-z0-9._~+/-]{16,}=*)`),
			group:    1, valid: credentialValue,
		},
		&regexRule{
			id: "curl-user", prio: prioAssignment, cat: CategoryBearer, keywords: []string{"curl", "--user"},
			before: 200, after: 400,
			re:    regexp.MustCompile(`(?:\s|^)(?:-u|--user)[ \t]+['"]?[^\s:'"/]+:([^\s'"/][^\s'"]{2,})`),
			group: 1, valid: credentialValue,
		},
		&regexRule{
			id: "env-secret", prio: prioAssignment, cat: CategoryEnv,
			before: 80, after: 600,
			keep:     envAssignment,
			keywords: []string{"key", "secret", "token", "pass", "pwd", "credential", "auth", "private", "salt", "dsn"},
			re:       regexp.MustCompile(`(?:^|[^A-Za-z0-9_])(?:export[ \t]+)?[A-Z][A-Z0-9_]*?(?:KEY|SECRET|TOKEN|PASSWORD|PASSWD|PWD|PASS|PASSPHRASE|CREDENTIALS?|AUTH|PRIVATE|SALT|DSN|SIGNATURE)[A-Z0-9_]*[ \t]*=[ \t]*['"]?([^\s'"#;,&|]+)`),
			group:    1, valid: credentialValue,
		},
		&regexRule{
			id: "secret-assignment", prio: prioAssignment, cat: CategoryEnv,
			before: 80, after: 600,
			keep:     quotedAssignment,
			keywords: []string{"key", "secret", "token", "pass", "pwd", "credential"},
			re:       regexp.MustCompile(`(?i)(?:api[_-]?key|secret|token|password|passwd|pwd|passphrase|credentials?|private[_-]?key|access[_-]?key)[a-z0-9_.-]{0,40}["']?[ \t]*[:=][ \t]*["']([^"'\s]{6,512})["']`),
			group:    1, valid: credentialValue,
		},
		&regexRule{
			id: "password-in-text", prio: prioAssignment, cat: CategoryEnv, keywords: []string{"pass"},
			keep:   passwordIs,
			before: 1, after: 300,
			re:    regexp.MustCompile("(?i)\\bpass(?:word|wd|phrase)?\\s+(?:is|was|=|:)\\s+[\"'`]?([^\\s\"'`]{5,}[^\\s\"'`.,;:)!?])"),
			group: 1, valid: credentialValue,
		},
		&regexRule{
			id: "private-key", prio: prioPrivateKey, cat: CategoryPrivateKey, keywords: []string{"private key"},
			before: 40, after: 20000,
			re: regexp.MustCompile(`-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s\\:,.-]*?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,-]{32,})`),
		},
		&regexRule{
			id: "url-password", prio: prioCredential, cat: CategoryConnection, keywords: []string{"://"},
			before: 30, after: 600,
			re:    regexp.MustCompile(`(?i)\b((?:jdbc:)?[a-z][a-z0-9+.-]{1,20})://[^\s:/@'"<>\[\]]*:([^\s@/'"<>]+)@[A-Za-z0-9\[]`),
			group: 2, valid: func(s string) bool { return len(s) >= 3 },
			ruleFor: func(sub []string) string {
				if dbSchemes[strings.ToLower(sub[1])] {
					return "connection-string"
				}
				return "url-password"
			},
		},
		&regexRule{
			id: "url-query-secret", prio: prioAssignment, cat: CategoryConnection,
			before: 16, after: 600,
			keywords: []string{"password=", "pwd=", "pass=", "token=", "key=", "secret=", "sig=", "signature="},
			re:       regexp.MustCompile(`(?i)[?&;](?:password|passwd|pwd|pass|access_token|auth_token|api_key|apikey|token|secret|client_secret|sig|signature|x-amz-signature|key)=([^&\s#'"<>]{6,})`),
			group:    1, valid: credentialValue,
		},
		&regexRule{
			id: "sk-key", prio: prioKeyFormat, cat: CategoryToken, keywords: []string{"sk-"},
			before: 1, after: 400,
			re:    regexp.MustCompile(`\b(sk-(?:ant-(?:api|admin)\d{2}-|proj-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_-]{20,})`),
			group: 1, valid: tokenValue,
		},
		&regexRule{
			id: "jwt", prio: prioKeyFormat, cat: CategoryToken, keywords: []string{"eyj"},
			before: 1, after: 8000,
			re:    regexp.MustCompile(`\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})`),
			group: 1,
		},
		&regexRule{
			id: "email", prio: prioEmail, cat: CategoryEmail, keywords: []string{"@"},
			before: 80, after: 260,
			re:    regexp.MustCompile(`(?:^|[^A-Za-z0-9._%+-])([A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24})\b`),
			group: 1, valid: emailValue,
		},
		&regexRule{
			id: "internal-host", prio: prioHost, cat: CategoryHost,
			before: 260, after: 16,
			keywords: []string{".internal", ".local", ".lan", ".corp", ".intranet", ".home.arpa", ".intra", ".private"},
			re:       regexp.MustCompile(`(?i)\b((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:internal|local|localdomain|lan|corp|intranet|home\.arpa|intra|private))\b(?:$|[^-])`),
			group:    1,
		},
		&regexRule{
			id: "ssh-host", prio: prioHost, cat: CategoryHost, keywords: []string{"ssh", "scp", "rsync"},
			before: 0, after: 200,
			re:    regexp.MustCompile(`\b(?:ssh|scp|sftp|rsync)\b[^\n]{0,80}?\b[A-Za-z0-9._-]+@([A-Za-z0-9][A-Za-z0-9.-]*[A-Za-z0-9])`),
			group: 1, valid: func(s string) bool { return !publicHosts[strings.ToLower(s)] },
		},
	}
}

// publicHosts are well-known hosts that say nothing about the person.
var publicHosts = map[string]bool{
	"github.com": true, "gitlab.com": true, "bitbucket.org": true, "ssh.dev.azure.com": true,
	"codeberg.org": true, "localhost": true,
}

// notEmailTLDs are file extensions that follow an @ in names like icon@2x.png.
var notEmailTLDs = map[string]bool{
	"png": true, "jpg": true, "jpeg": true, "gif": true, "svg": true, "webp": true, "js": true,
	"ts": true, "tsx": true, "jsx": true, "mjs": true, "go": true, "py": true, "rs": true, "md": true,
	"json": true, "css": true, "html": true, "txt": true, "yaml": true, "yml": true, "toml": true,
	"lock": true, "sh": true, "vue": true, "java": true, "kt": true, "rb": true, "php": true,
}

// emailValue drops example domains, file names and the generic git remote user.
func emailValue(s string) bool {
	at := strings.LastIndexByte(s, '@')
	local, domain := strings.ToLower(s[:at]), strings.ToLower(s[at+1:])
	tld := domain[strings.LastIndexByte(domain, '.')+1:]
	if notEmailTLDs[tld] || local == "git" || local == "noreply" || local == "no-reply" {
		return false
	}
	switch {
	case domain == "example.com", domain == "example.org", domain == "example.net",
		strings.HasSuffix(domain, ".example.com"), strings.HasSuffix(domain, ".test"),
		strings.HasSuffix(domain, ".invalid"), strings.HasSuffix(domain, ".example"):
		return false
	}
	return true
}
