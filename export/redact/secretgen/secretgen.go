// Package secretgen generates session text with planted secrets of every kind the
// redact package must find, for recall tests and benchmarks. Output depends only on
// the seed.
package secretgen

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/logbook/logbook/export/redact"
)

// Secret is one planted value.
type Secret struct {
	// Kind names the generator, such as "github-pat".
	Kind string
	// Category is the category a scanner should report it under.
	Category redact.Category
	// Value is the exact secret text planted.
	Value string
}

// Occurrence is one planted copy of a secret: in which doc, and in what form (a title
// flattens line breaks, a JSON tool argument escapes them).
type Occurrence struct {
	Secret
	Doc string
}

// Corpus is generated docs and the secrets planted in them.
type Corpus struct {
	Docs        []redact.Doc
	Secrets     []Secret
	Occurrences []Occurrence
	// UserNames are the names planted in prose, to pass as redact.Options.UserNames.
	UserNames []string
}

// blockKinds are the places a session carries text.
var blockKinds = []string{"message", "tool-args", "tool-output", "reasoning", "title"}

// copies is how many docs each secret is planted in, to test consistent placeholders.
const copies = 3

// Generate returns about size bytes of session text (at least one round of every kind)
// with each secret planted in copies docs of different block kinds, and clean filler
// between them. A round of secrets is planted per started MB.
func Generate(seed uint64, size int) Corpus {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	var c Corpus
	bytes, seq := 0, 0
	add := func(kind, text string) string {
		id := fmt.Sprintf("session-%03d/seq-%05d/%s", seq/200, seq, kind)
		c.Docs = append(c.Docs, redact.Doc{ID: id, Text: text})
		seq++
		bytes += len(text)
		return id
	}
	rounds := max(1, (size+1<<20-1)/(1<<20))
	for round := 0; round < rounds; round++ {
		for _, p := range g.planters() {
			s, wrap := p()
			c.Secrets = append(c.Secrets, s)
			if s.Category == redact.CategoryUser && !strings.Contains(s.Kind, "path") {
				c.UserNames = append(c.UserNames, s.Value)
			}
			for k := 0; k < copies; k++ {
				kind := blockKinds[(len(c.Secrets)+k)%len(blockKinds)]
				text, form := wrap(kind)
				o := Occurrence{Secret: s, Doc: add(kind, text)}
				o.Value = form
				c.Occurrences = append(c.Occurrences, o)
			}
		}
		for bytes < size*(round+1)/rounds {
			add(blockKinds[seq%len(blockKinds)], g.filler())
		}
	}
	return c
}

type gen struct{ r *rand.Rand }

const (
	alnum   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upper32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b64     = alnum + "+/"
	urlsafe = alnum + "_-"
	pwChars = alnum + "!%^*_-+="
)

func (g *gen) pick(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.r.IntN(len(set))]
	}
	// Generated keys always mix digits in, as real ones do: one of the set's own, so
	// that a base32 AWS key stays base32.
	var digits []byte
	for i := 0; i < len(set); i++ {
		if set[i] >= '0' && set[i] <= '9' {
			digits = append(digits, set[i])
		}
	}
	if len(digits) > 0 {
		b[g.r.IntN(n)] = digits[g.r.IntN(len(digits))]
	}
	return string(b)
}

func (g *gen) one(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// planter makes one secret and a function that embeds it in text for a block kind,
// returning the text and the form the secret takes there.
type planter func() (Secret, func(kind string) (string, string))

// jsonEscaper escapes text the way a JSON tool argument carries it.
var jsonEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// embed returns a wrapper that puts snippet, which contains value, into text typical of
// each block kind.
func (g *gen) embed(snippet, value string) func(string) (string, string) {
	intro := g.filler()
	return func(kind string) (string, string) {
		switch kind {
		case "title":
			flat := func(s string) string { return strings.ReplaceAll(s, "\n", " ") }
			return "Debug failing deploy: " + flat(snippet), flat(value)
		case "tool-args":
			return `{"command":"bash -lc \"` + jsonEscaper.Replace(snippet) + `\"","timeout":120000}`, jsonEscaper.Replace(value)
		case "tool-output":
			return "$ cat notes.txt\n" + snippet + "\n[exit 0]\n", value
		case "reasoning":
			return "The user pasted this earlier: " + snippet + "\nI should not repeat it back, but I need it to reproduce the failure.\n" + intro, value
		}
		return intro + "\n\nHere is what I ran:\n\n" + snippet + "\n\nIt still fails with 401.\n", value
	}
}

func (g *gen) planters() []planter {
	simple := func(kind string, cat redact.Category, value func() string, snippet func(v string) string) planter {
		return func() (Secret, func(string) (string, string)) {
			v := value()
			return Secret{Kind: kind, Category: cat, Value: v}, g.embed(snippet(v), v)
		}
	}
	name := func() string {
		return g.one("alice", "bjorn", "chandra", "dmitri", "evelyn", "farouk", "giulia", "hiroshi") + g.pick("abcdefghijklmnopqrstuvwxyz", 3)
	}
	pw := func() string { return g.pick(pwChars, 18) }
	return []planter{
		simple("aws-access-key", redact.CategoryToken, func() string { return "AKIA" + g.pick(upper32, 16) },
			func(v string) string { return "aws configure set aws_access_key_id " + v }),
		simple("aws-secret-key", redact.CategoryEnv, func() string { return g.pick(b64, 40) },
			func(v string) string { return "AWS_SECRET_ACCESS_KEY=" + v }),
		simple("github-pat", redact.CategoryToken, func() string { return "ghp_" + g.pick(alnum, 36) },
			func(v string) string { return "git clone https://x-access-token:" + v + "@github.com/acme/api.git" }),
		simple("github-fine-grained-pat", redact.CategoryToken, func() string { return "github_pat_" + g.pick(alnum, 22) + "_" + g.pick(alnum, 59) },
			func(v string) string { return "gh auth login --with-token <<< " + v }),
		simple("slack-bot-token", redact.CategoryToken,
			func() string {
				return "xoxb-" + g.pick("0123456789", 12) + "-" + g.pick("0123456789", 13) + "-" + g.pick(alnum, 24)
			},
			func(v string) string { return "slack_token = " + v + " # posts build status" }),
		simple("openai-key", redact.CategoryToken, func() string { return "sk-proj-" + g.pick(urlsafe, 56) + "T3BlbkFJ" + g.pick(urlsafe, 56) },
			func(v string) string { return "client = OpenAI(api_key=\"" + v + "\")" }),
		simple("anthropic-key", redact.CategoryToken, func() string { return "sk-ant-api03-" + g.pick(urlsafe, 93) + "AA" },
			func(v string) string { return "the key I used was " + v + " for claude" }),
		simple("deepseek-key", redact.CategoryToken, func() string { return "sk-" + g.pick("0123456789abcdef", 32) },
			func(v string) string { return "deepseek config: key " + v }),
		simple("jwt", redact.CategoryToken, g.jwt,
			func(v string) string { return "the session cookie is " + v }),
		simple("private-key", redact.CategoryPrivateKey, g.privateKey,
			func(v string) string { return "cat ~/.ssh/deploy_key\n" + v }),
		simple("bearer-curl", redact.CategoryBearer, func() string { return g.pick(alnum, 40) },
			func(v string) string {
				return `curl -sS -H "Authorization: Bearer ` + v + `" https://api.acme-corp.io/v1/jobs`
			}),
		simple("api-key-header", redact.CategoryBearer, func() string { return g.pick(alnum, 32) },
			func(v string) string { return `curl -H 'x-api-key: ` + v + `' https://api.acme-corp.io/v2/data` }),
		simple("env-dump", redact.CategoryEnv, pw,
			func(v string) string {
				return "NODE_ENV=production\nPORT=8080\nDATABASE_PASSWORD=" + v + "\nLOG_LEVEL=debug"
			}),
		simple("password-in-message", redact.CategoryEnv, pw,
			func(v string) string { return "ok, the staging admin password is " + v + " - please log in and check" }),
		simple("postgres-url", redact.CategoryConnection, pw,
			func(v string) string { return "psql postgres://app:" + v + "@db-3.prod.internal:5432/app" }),
		simple("mongodb-srv-url", redact.CategoryConnection, pw,
			func(v string) string { return "MONGO_URL=mongodb+srv://svc:" + v + "@cluster0.x1y2z.mongodb.net/app" }),
		simple("redis-url", redact.CategoryConnection, pw,
			func(v string) string { return "redis-cli -u redis://:" + v + "@cache.corp:6379/0 ping" }),
		simple("amqp-url", redact.CategoryConnection, pw,
			func(v string) string { return "broker: amqp://worker:" + v + "@rabbit.acme-corp.io:5672/vhost" }),
		simple("mysql-url", redact.CategoryConnection, pw,
			func(v string) string { return `DSN = "mysql://root:` + v + `@db.acme-corp.io:3306/shop"` }),
		simple("https-password", redact.CategoryConnection, pw,
			func(v string) string { return "git remote add ci https://deploy:" + v + "@git.acme-corp.io/web.git" }),
		simple("email", redact.CategoryEmail,
			func() string { return name() + "." + g.pick("abcdefghijklmnopqrstuvwxyz", 5) + "@acme-corp.io" },
			func(v string) string { return "git config user.email " + v }),
		simple("home-path-linux", redact.CategoryUser, name,
			func(v string) string { return "open /home/" + v + "/src/api/main.go: permission denied" }),
		simple("home-path-mac", redact.CategoryUser, name,
			func(v string) string { return "cd /Users/" + v + "/Projects/web && npm test" }),
		simple("home-path-windows", redact.CategoryUser, name,
			func(v string) string { return `Get-Content C:\Users\` + v + `\AppData\Roaming\tool\config.json` }),
		simple("user-name", redact.CategoryUser, name,
			func(v string) string { return "Thanks, " + v + " - I'll push the fix." }),
		simple("ipv4-private", redact.CategoryHost,
			func() string { return fmt.Sprintf("10.%d.%d.%d", g.r.IntN(256), g.r.IntN(256), 1+g.r.IntN(254)) },
			func(v string) string { return "ssh -p 2222 deploy@" + v + " 'systemctl restart api'" }),
		simple("ipv4-lan", redact.CategoryHost,
			func() string { return fmt.Sprintf("192.168.%d.%d", g.r.IntN(256), 1+g.r.IntN(254)) },
			func(v string) string { return "PING " + v + ": 56 data bytes" }),
		simple("ipv6", redact.CategoryHost,
			func() string {
				return fmt.Sprintf("fd%02x:%x:%x::%x:%x", g.r.IntN(256), g.r.IntN(65536), g.r.IntN(65536), 1+g.r.IntN(65535), 1+g.r.IntN(65535))
			},
			func(v string) string { return "inet6 " + v + "/64 scope global" }),
		simple("internal-host", redact.CategoryHost,
			func() string { return "build-" + g.pick("0123456789", 2) + ".ci.internal" },
			func(v string) string { return "curl http://" + v + ":8080/healthz" }),
	}
}

func (g *gen) jwt() string {
	enc := base64.RawURLEncoding
	h := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	p := enc.EncodeToString([]byte(fmt.Sprintf(`{"sub":"%s","iat":%d,"scope":"admin"}`, g.pick(alnum, 12), 1700000000+g.r.IntN(1e8))))
	return h + "." + p + "." + g.pick(urlsafe, 43)
}

func (g *gen) privateKey() string {
	kind := g.one("RSA ", "EC ", "OPENSSH ", "")
	var b strings.Builder
	b.WriteString("-----BEGIN " + kind + "PRIVATE KEY-----\n")
	for i := 0; i < 12; i++ {
		b.WriteString(g.pick(b64, 64) + "\n")
	}
	b.WriteString(g.pick(b64, 20) + "==\n-----END " + kind + "PRIVATE KEY-----")
	return b.String()
}

// filler returns clean session text of the kinds agents produce: prose, code, command
// output, JSON. It mentions tokens, keys and passwords the way code does, without any.
func (g *gen) filler() string {
	var b strings.Builder
	for n := 1 + g.r.IntN(4); n > 0; n-- {
		switch g.r.IntN(7) {
		case 0:
			b.WriteString(g.one(
				"I'll update the parser so the session key is derived from the file path, then rerun the tests.",
				"The failing test expects the token refresh to happen before the request is retried; let me check the client.",
				"Looking at the migration, the password column is hashed with bcrypt, so the login handler compares hashes only.",
				"Done. The importer now skips damaged lines and records their line numbers instead of aborting the file.",
				"Let me read the config loader first: it reads the API key name from the environment and fails if unset.",
			))
		case 1:
			fmt.Fprintf(&b, "=== RUN   TestImport/ok\n--- PASS: TestImport/ok (0.%02ds)\n=== RUN   TestToken/expired\n--- PASS: TestToken/expired (0.00s)\nPASS\nok  \tgithub.com/logbook/logbook/archive\t%d.%03ds\n", g.r.IntN(100), g.r.IntN(3), g.r.IntN(1000))
		case 2:
			b.WriteString("func (s *Store) rotateToken(ctx context.Context, key string) error {\n\ttoken, err := s.tokens.Get(ctx, key)\n\tif err != nil {\n\t\treturn fmt.Errorf(\"rotate %s: %w\", key, err)\n\t}\n\tpassword := os.Getenv(\"DB_PASSWORD\")\n\treturn s.save(ctx, token, password)\n}\n")
		case 3:
			fmt.Fprintf(&b, `{"type":"tool_use","id":"toolu_%s","name":"Read","input":{"file_path":"archive/session.go","offset":%d,"limit":200}}`, hex.EncodeToString([]byte(g.pick(alnum, 12))), g.r.IntN(900))
		case 4:
			fmt.Fprintf(&b, "added %d packages, and audited %d packages in %ds\n\nvite v5.4.%d building for production...\n✓ %d modules transformed.\ndist/assets/index-%s.js  %d.%02d kB │ gzip: %d.%02d kB\n", 100+g.r.IntN(400), 400+g.r.IntN(400), 1+g.r.IntN(20), g.r.IntN(20), 30+g.r.IntN(400), g.pick("abcdef0123456789", 8), g.r.IntN(900), g.r.IntN(100), g.r.IntN(300), g.r.IntN(100))
		case 5:
			fmt.Fprintf(&b, "commit %s\nMerge: %s %s\n\n    archive: re-importing the same file changes nothing (#%d)\n", g.pick("0123456789abcdef", 40), g.pick("0123456789abcdef", 7), g.pick("0123456789abcdef", 7), g.r.IntN(200))
		case 6:
			b.WriteString("total 48\ndrwxr-xr-x  7 staff  224 Nov 30 14:02 .\n-rw-r--r--  1 staff 1804 Nov 30 14:02 go.mod\n-rw-r--r--  1 staff 9133 Nov 30 14:02 go.sum\ndrwxr-xr-x 12 staff  384 Nov 30 14:01 archive\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}
