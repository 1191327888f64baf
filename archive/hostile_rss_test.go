package archive_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/logbook/logbook/archive"
	"github.com/logbook/logbook/archive/archivetest"
	"github.com/logbook/logbook/archive/dsh"
)

// The hostile-input harness: the real `logbook import` binary, one run per hostile
// input, each beside a good copy of the real log, with the peak RSS of the process
// read from its rusage. It writes a few GiB of temporary files and takes minutes, so
// it runs only with LOGBOOK_HOSTILE=1 (LOGBOOK_HOSTILE_BIN names a built binary;
// otherwise it builds one). The caps themselves are held by small always-run tests
// (dsh/hostile_test.go, hostile_blob_test.go, memory_readahead_test.go).

// rssLimit is the peak RSS every run must stay under (issue #10).
const rssLimit = 300 << 20

// runStats is what one run of a process cost.
type runStats struct {
	maxRSS    int64 // bytes
	user, sys time.Duration
	wall      time.Duration
}

func (r runStats) String() string {
	return fmt.Sprintf("peak RSS %.1f MB, CPU %.2fs (user %.2fs + sys %.2fs), wall %.2fs",
		float64(r.maxRSS)/1e6, (r.user + r.sys).Seconds(), r.user.Seconds(), r.sys.Seconds(), r.wall.Seconds())
}

// runMeasured runs a command to the end (an exit status of 1 is an import's "some
// file was not archived whole") and returns its stdout and what it cost, as GNU time
// reports it. The rusage of a child this process starts directly is no use: Go
// starts children with vfork, so the kernel counts this process's own peak RSS as
// the child's.
func runMeasured(t *testing.T, ctx context.Context, env []string, name string, args ...string) ([]byte, runStats) {
	t.Helper()
	timeBin, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		t.Skip("the harness needs GNU time (/usr/bin/time) to read a child's peak RSS")
	}
	stats := filepath.Join(t.TempDir(), "time")
	cmd := exec.CommandContext(ctx, timeBin, append([]string{"-o", stats, "-f", "%M %U %S %e", name}, args...)...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("%s %s: %v\nstderr: %s", name, strings.Join(args, " "), err, errb.String())
	}
	b, err := os.ReadFile(stats)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var kb int64
	var user, sys, wall float64
	_, err = fmt.Sscanf(lines[len(lines)-1], "%d %f %f %f", &kb, &user, &sys, &wall)
	require.NoError(t, err, "time output: %s", b)
	sec := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	return out.Bytes(), runStats{maxRSS: kb << 10, user: sec(user), sys: sec(sys), wall: sec(wall)}
}

// hostileBinary returns the logbook binary to run.
func hostileBinary(t *testing.T) string {
	if bin := os.Getenv("LOGBOOK_HOSTILE_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "lbh")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = ".." // the module root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "build logbook: %s", out)
	return bin
}

var headerID = regexp.MustCompile(`"id":"[^"]*"`)

// realLog is the real log, decompressed.
func realLog(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile(archivetest.Corpus(t, archivetest.RealLog))
	require.NoError(t, err)
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	plain, err := dec.DecodeAll(raw, nil)
	require.NoError(t, err)
	return plain
}

// writeCopy writes the real log under root with header id id, in its own session
// folder (in the project folder its cwd maps to), and returns its path.
func writeCopy(t *testing.T, log []byte, root, id string) string {
	t.Helper()
	nl := bytes.IndexByte(log, '\n')
	header := headerID.ReplaceAll(log[:nl], []byte(`"id":"`+id+`"`))
	path := filepath.Join(root, "--G-dsh~5BA2~6237~7AEF--", id, "session.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	f, err := os.Create(path)
	require.NoError(t, err)
	_, err = f.Write(append(header, log[nl:]...))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return path
}

// letters yields n pseudo-random letters and digits: text that neither compresses
// nor holds a newline.
type letters struct {
	n int64
	r *rand.ChaCha8
}

func newLetters(n int64) *letters {
	return &letters{n: n, r: rand.NewChaCha8([32]byte{1})}
}

func (l *letters) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), l.n)]
	_, _ = l.r.Read(p)
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"
	for i, b := range p {
		p[i] = alphabet[b&63]
	}
	l.n -= int64(len(p))
	return len(p), nil
}

// zeros yields n zero bytes.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), z.n)]
	clear(p)
	z.n -= int64(len(p))
	return len(p), nil
}

// writeParts writes the readers one after the other into a new file at path.
func writeParts(t *testing.T, path string, parts ...io.Reader) int64 {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriterSize(f, 1<<20)
	n, err := io.Copy(w, io.MultiReader(parts...))
	require.NoError(t, err)
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	return n
}

// zstdStream compresses r as one frame with a streaming writer (as dsh does: no
// declared content size).
func zstdStream(t *testing.T, r io.Reader) []byte {
	t.Helper()
	var out bytes.Buffer
	enc, err := zstd.NewWriter(&out, zstd.WithEncoderCRC(true), zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	require.NoError(t, err)
	_, err = io.Copy(enc, r)
	require.NoError(t, err)
	require.NoError(t, enc.Close())
	return out.Bytes()
}

const hostileHeader = `{"type":"session","version":0,"id":"%s","createdAt":1786901809409,"cwd":"/h","delegationDepth":0}` + "\n"

// turnLines is one complete turn from seq on, with a user message of text.
func turnLines(seq int64, turn int, text string) string {
	return fmt.Sprintf(`{"type":"turn/start","seq":%d,"time":1,"data":{"turn":%d}}`+"\n"+
		`{"type":"step/start","seq":%d,"time":2,"data":{"turn":%d,"step":1}}`+"\n"+
		`{"type":"user/message","seq":%d,"time":3,"data":{"content":[{"type":"text","text":%q}],"source":{"kind":"user"},"role":"user","id":"u%d"},"surfaceOp":"append"}`+"\n"+
		`{"type":"step/end","seq":%d,"time":4,"data":{"turn":%d,"step":1}}`+"\n"+
		`{"type":"turn/end","seq":%d,"time":5,"data":{"turn":%d,"reason":{"kind":"completed"}}}`+"\n",
		seq, turn, seq+1, turn, seq+2, text, seq+2, seq+3, turn, seq+4, turn)
}

// hostileCase is one hostile input and what the import must say of it.
type hostileCase struct {
	name    string
	make    func(t *testing.T, dir string) string // writes the input, returns its path
	verdict dsh.Verdict                           // "" when any verdict is right
	kinds   []dsh.Kind                            // the problem kind (any of these)
	message []string                              // the problem message holds these
	records int64                                 // records archived from it, -1 to skip
	kept    bool                                  // its original bytes must all be kept
}

func hostileCases() []hostileCase {
	const lineLen = 200 << 20
	return []hostileCase{{
		name: "dev-zero", make: func(*testing.T, string) string { return "/dev/zero" },
		// Discover reports it; the kind is io-error until import.go takes
		// Discovered.Problems (then not-regular-file).
		kinds: []dsh.Kind{archive.KindNotRegular, dsh.KindIOError}, records: -1,
		message: []string{"/dev/zero: is a character device, not a regular file"},
	}, {
		name: "fifo", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "pipe", "session.jsonl")
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, syscall.Mkfifo(p, 0o600))
			return p
		},
		kinds: []dsh.Kind{archive.KindNotRegular, dsh.KindIOError}, records: -1,
		message: []string{"is a named pipe (FIFO), not a regular file"},
	}, {
		name: "line-200MB", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "long", "s-long", "session.jsonl")
			head := fmt.Sprintf(hostileHeader, "s-long") + turnLines(0, 1, "before") +
				`{"type":"user/message","seq":5,"time":6,"data":{"content":[{"type":"text","text":"`
			writeParts(t, p, strings.NewReader(head), newLetters(lineLen),
				strings.NewReader(`"}]},"surfaceOp":"append"}`+"\n"+turnLines(6, 2, "after")))
			return p
		},
		verdict: dsh.VerdictCorrupt, kinds: []dsh.Kind{dsh.KindLineTooLong}, records: 5, kept: true,
		message: []string{"line 7 at byte ", "over the limit of 16777216 bytes", "a later turn/end"},
	}, {
		name: "no-newline-1GiB", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "nonl", "s-nonl", "session.jsonl")
			writeParts(t, p, newLetters(1<<30))
			return p
		},
		verdict: dsh.VerdictCorrupt, kinds: []dsh.Kind{dsh.KindLineTooLong}, records: 0, kept: true,
		message: []string{"line 1 at byte 0 is 1073741824 bytes long", "no newline"},
	}, {
		name: "zstd-bomb", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "bomb", "s-bomb", "session.jsonl.zstd")
			header := zstdStream(t, strings.NewReader(fmt.Sprintf(hostileHeader, "s-bomb")))
			bomb := zstdStream(t, &zeros{n: 4 << 30}) // 4 GiB of zeros
			t.Logf("zstd bomb: %d bytes decoding to 4 GiB", len(header)+len(bomb))
			writeParts(t, p, bytes.NewReader(header), bytes.NewReader(bomb))
			return p
		},
		verdict: dsh.VerdictCorrupt, kinds: []dsh.Kind{dsh.KindFrameTooLarge}, records: 0, kept: true,
		message: []string{"frame 1 at byte ", "decodes to more than"},
	}, {
		name: "zstd-2GB-valid", make: func(t *testing.T, dir string) string {
			// 2,000 complete turns, each with a 1 MiB message, one frame per turn:
			// a valid log that expands from a few hundred KB to 2 GiB.
			p := filepath.Join(dir, "expand", "s-expand", "session.jsonl.zstd")
			enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithEncoderLevel(zstd.SpeedBestCompression))
			require.NoError(t, err)
			defer enc.Close()
			out := enc.EncodeAll([]byte(fmt.Sprintf(hostileHeader, "s-expand")), nil)
			text := strings.Repeat("all work and no play ", 1<<20/21)
			for turn := range 2000 {
				out = enc.EncodeAll([]byte(turnLines(int64(turn)*5, turn+1, text)), out)
			}
			t.Logf("expanding zstd: %d bytes decoding to about 2 GiB", len(out))
			writeParts(t, p, bytes.NewReader(out))
			return p
		},
		verdict: dsh.VerdictOK, records: 10000,
	}, {
		name: "zstd-many-repeats", make: func(t *testing.T, dir string) string {
			// 100,000 turns, each a message of one word repeated: every block as
			// costly to the index's merges as a block may be, 100,000 times.
			p := filepath.Join(dir, "repeats", "s-repeats", "session.jsonl.zstd")
			enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithEncoderLevel(zstd.SpeedBestCompression))
			require.NoError(t, err)
			defer enc.Close()
			out := enc.EncodeAll([]byte(fmt.Sprintf(hostileHeader, "s-repeats")), nil)
			text := strings.Repeat("work ", 255)
			var frame strings.Builder
			for turn := range 100000 {
				frame.WriteString(turnLines(int64(turn)*5, turn+1, text))
				if turn%1000 == 999 { // a frame per 1,000 turns, under the frame limit
					out = enc.EncodeAll([]byte(frame.String()), out)
					frame.Reset()
				}
			}
			t.Logf("repeats: %d bytes decoding to about 170 MB", len(out))
			writeParts(t, p, bytes.NewReader(out))
			return p
		},
		verdict: dsh.VerdictOK, records: 500000,
	}}
}

// importReport is the part of `logbook import --json` the harness reads.
type importReport struct {
	Files []archive.FileReport `json:"files"`
}

// importBoth imports paths twice into fresh archives under dir: with the whole
// binary (archive, then index), and with Store.Import alone in a child process (the
// archive side). It returns the two reports and what each cost.
func importBoth(t *testing.T, bin, dir string, paths ...string) (whole, arch importReport, ws, as runStats) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	out, ws := runMeasured(t, ctx, os.Environ(), bin, append([]string{"--data", filepath.Join(dir, "data"), "import", "--json"}, paths...)...)
	require.NoError(t, json.Unmarshal(out, &whole), "report: %s", out)

	env := append(os.Environ(), "LOGBOOK_HOSTILE_CHILD_DB="+filepath.Join(dir, "archive-only.db"),
		"LOGBOOK_HOSTILE_CHILD_PATHS="+strings.Join(paths, string(os.PathListSeparator)))
	out, as = runMeasured(t, ctx, env, os.Args[0], "-test.run=^TestHostileChildImport$", "-test.count=1")
	i, j := bytes.IndexByte(out, '{'), bytes.LastIndexByte(out, '}')
	require.True(t, i >= 0 && j > i, "child output: %s", out)
	require.NoError(t, json.Unmarshal(out[i:j+1], &arch), "child report: %s", out)
	return whole, arch, ws, as
}

func TestHostileInputsBoundedRSS(t *testing.T) {
	if os.Getenv("LOGBOOK_HOSTILE") != "1" {
		t.Skip("the hostile-input harness writes GiBs and takes minutes: set LOGBOOK_HOSTILE=1")
	}
	bin := hostileBinary(t)
	log := realLog(t)
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir() // removed, big files and all, when the case ends
			hostile := c.make(t, dir)
			good := writeCopy(t, log, filepath.Join(dir, "good"), "session-good-"+c.name)
			whole, arch, ws, as := importBoth(t, bin, dir, hostile, filepath.Join(dir, "good"))
			t.Logf("%s: logbook import (archive and index): %s", c.name, ws)
			t.Logf("%s: Store.Import alone (the archive side): %s", c.name, as)
			assert.Less(t, as.maxRSS, int64(rssLimit), "peak RSS of the archive's import")
			assert.Less(t, ws.maxRSS, int64(rssLimit), "peak RSS of the whole import (the index side is the difference)")

			for _, rep := range []importReport{whole, arch} {
				byPath := map[string]archive.FileReport{}
				for _, f := range rep.Files {
					byPath[f.Path] = f
				}
				g, ok := byPath[good]
				require.True(t, ok, "the good file is reported: %+v", rep)
				assert.Equal(t, dsh.VerdictOK, g.Verdict, "the good file imports whole beside the hostile one: %+v", g.Error)
				assert.EqualValues(t, 87208, g.LogicalEvents)

				h, ok := byPath[hostile]
				require.True(t, ok, "the hostile file is reported: %+v", rep)
				if c.verdict != "" {
					assert.Equal(t, c.verdict, h.Verdict, "%+v", h.Error)
				}
				if len(c.kinds) > 0 && assert.NotNil(t, h.Error) {
					assert.Contains(t, c.kinds, h.Error.Kind)
					for _, m := range c.message {
						assert.Contains(t, h.Error.Message, m)
					}
				}
				if c.records >= 0 {
					assert.Equal(t, c.records, h.Records)
				}
			}
			for _, f := range whole.Files {
				if f.Path == hostile && f.Error != nil {
					t.Logf("%s: %s %s: %s", c.name, f.Verdict, f.Error.Kind, f.Error.Message)
				}
			}
			if c.kept {
				assertKept(t, filepath.Join(dir, "data", "logbook.db"), hostile)
			}
		})
	}
}

// assertKept checks that the archive keeps every byte of path, by hash.
func assertKept(t *testing.T, db, path string) {
	t.Helper()
	s, err := archive.Open(context.Background(), db)
	require.NoError(t, err)
	defer s.Close()
	kept := sha256.New()
	off, err := s.KeptBytes(context.Background(), path, "original", kept)
	require.NoError(t, err)
	assert.Zero(t, off)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	orig := sha256.New()
	_, err = io.Copy(orig, f)
	require.NoError(t, err)
	assert.Equal(t, orig.Sum(nil), kept.Sum(nil), "the archive keeps the file's original bytes")
}

// TestHostileCopiesBoundedRSS imports 20 copies of the real log (each its own
// session), with the whole binary and with the archive alone, so the two figures tell
// which side holds the memory.
func TestHostileCopiesBoundedRSS(t *testing.T) {
	if os.Getenv("LOGBOOK_HOSTILE") != "1" {
		t.Skip("set LOGBOOK_HOSTILE=1")
	}
	bin := hostileBinary(t)
	log := realLog(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "copies")
	for i := range 20 {
		writeCopy(t, log, root, fmt.Sprintf("session-copy-%02d", i))
	}
	whole, arch, ws, as := importBoth(t, bin, dir, root)
	t.Logf("20 copies: logbook import (archive and index): %s", ws)
	t.Logf("20 copies: Store.Import alone (the archive side): %s", as)
	for _, rep := range []importReport{whole, arch} {
		require.Len(t, rep.Files, 20)
		for _, f := range rep.Files {
			assert.Equal(t, dsh.VerdictOK, f.Verdict, "%s: %+v", f.Path, f.Error)
		}
	}
	assert.Less(t, as.maxRSS, int64(rssLimit), "the archive side")
	assert.Less(t, ws.maxRSS, int64(rssLimit), "the whole import (the index side is the difference)")
}

// TestHostileChildImport is the child process of importBoth: the archive's import
// alone, its report on stdout.
func TestHostileChildImport(t *testing.T) {
	db := os.Getenv("LOGBOOK_HOSTILE_CHILD_DB")
	if db == "" {
		t.Skip("run by the hostile-input harness")
	}
	s, err := archive.Open(context.Background(), db)
	require.NoError(t, err)
	defer s.Close()
	paths := filepath.SplitList(os.Getenv("LOGBOOK_HOSTILE_CHILD_PATHS"))
	rep, err := s.Import(context.Background(), paths, archive.ImportOptions{})
	require.NoError(t, err)
	b, err := json.Marshal(importReport{Files: rep.Files})
	require.NoError(t, err)
	fmt.Println(string(b))
}
