package format

// Verdict is the outcome of reading one session source.
type Verdict string

// Verdicts, from best to worst.
const (
	VerdictOK          Verdict = "ok"          // every record decoded
	VerdictRecovered   Verdict = "recovered"   // a torn or uncommitted tail was dropped; the rest is intact
	VerdictCorrupt     Verdict = "corrupt"     // damage inside committed data; only the valid prefix is usable
	VerdictUnsupported Verdict = "unsupported" // a version this importer does not read
)

// Kind is a stable slug naming a class of problem. Kinds are a public interface
// (the CLI's --json output and tests rely on them); never rename one. Each format
// declares the kinds it reports; the store declares the kinds of a failed import.
type Kind string

// Problem is one finding about a session source. Line is the 1-based line of the
// logical (decompressed) content, 0 when not tied to a line. Offset is the byte
// offset in the physical file (for a compressed file, the start of its frame) or -1.
// Seq is the event the finding is about, when there is one.
type Problem struct {
	Kind    Kind   `json:"kind"`
	Line    int64  `json:"line"`
	Offset  int64  `json:"offset"`
	Seq     int64  `json:"seq,omitempty"`
	Message string `json:"message"`
}

func (p *Problem) Error() string { return p.Message }
