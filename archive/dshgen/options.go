package dshgen

// Family is a bitmask of event families Generate should produce.
type Family uint32

// Event families. The zero Family means AllFamilies.
const (
	// FamilyPolicy: permission/preset, sandbox/mode, approval/policy, model/selection, plan/mode.
	FamilyPolicy Family = 1 << iota
	// FamilyTitles: session/title (fallback, provider, user) and session/title-llm-request.
	FamilyTitles
	// FamilyTools: tool/call + tool/result, including error results.
	FamilyTools
	// FamilyApprovals: approval/asked + approval/decided with every outcome, one left undecided.
	FamilyApprovals
	// FamilyCommands: command/run + command/done.
	FamilyCommands
	// FamilyRetries: a failed attempt, llm/retry and llm/retry-started.
	FamilyRetries
	// FamilyHooks: hook/invoked + hook/result.
	FamilyHooks
	// FamilyTodos: todo/write.
	FamilyTodos
	// FamilyGoals: goal/change.
	FamilyGoals
	// FamilyCompaction: in-turn, manual (turn null) and failed compaction brackets.
	FamilyCompaction
	// FamilyPrune: compaction/prune followed by a single-node tool/result replace.
	FamilyPrune
	// FamilySchedules: schedule/change create (at, after, every), dispatch and delete.
	FamilySchedules
	// FamilyTurnEnds: turn/end reasons other than completed (aborted, error, max-tokens).
	FamilyTurnEnds
	// FamilyInbox: agent/inbox/spliced queue records around human prompts.
	FamilyInbox
	// FamilyInjected: plugin-sourced user/message context (runtime snapshots, notices).
	FamilyInjected
	// FamilyResume: a session/end-seed resume marker between turns.
	FamilyResume
	// FamilySplitRuns: chunk runs split by flush boundaries (row + loose events).
	FamilySplitRuns
	// FamilyNegativeDT: occasional negative time gaps inside chunk runs.
	FamilyNegativeDT
	// FamilyUnknownIgnorable: an unknown event type carrying ignorable:true. Valid but
	// flagged by importers, so it is not part of AllFamilies.
	FamilyUnknownIgnorable

	familyEnd
)

// AllFamilies is every family a spec-valid log may contain without warnings.
const AllFamilies = (familyEnd - 1) &^ FamilyUnknownIgnorable

// Has reports whether every bit of g is set in f.
func (f Family) Has(g Family) bool { return f&g == g }

// SeqEncoding selects how top-level sourceEventSeqs are written.
type SeqEncoding uint8

// Source-seq encodings.
const (
	// SeqCanonical is the writer's encoding: strictly increasing lists become maximal
	// runs, runs of >= 3 as [start,end] pairs; anything else is written verbatim.
	SeqCanonical SeqEncoding = iota
	// SeqFlat writes plain number lists (pre-0.1.2-alpha.1 V0 files).
	SeqFlat
	// SeqNonCanonical writes every run of a strictly increasing list as a pair, even
	// runs of 1 or 2 ([[7,7]], [[3,4]]): valid for the decoder, never written by dsh.
	SeqNonCanonical
)

// Default values used when an Options field is zero.
const (
	DefaultCreatedAt        int64 = 1786901809409 // 2026-08-16T..Z, like the real corpus file
	DefaultTurns                  = 8
	DefaultStepsPerTurn           = 3
	DefaultToolCallsPerStep       = 2
	DefaultChunkTokens            = 24
	DefaultToolResultBytes        = 600
	hugeLineBytes                 = 2<<20 + 64<<10 // > 2 MiB
)

// Options configures one generated session. The zero value is usable: seed 0, a
// derived session id, no cwd, and every family on.
type Options struct {
	Seed      uint64 // drives every random choice
	ID        string // session id; default "session-<uuid>" derived from Seed
	Cwd       string // header cwd; "" omits the key (the session lives under _no-cwd)
	CreatedAt int64  // header createdAt (epoch ms); default DefaultCreatedAt

	AgentPreset     string // header agentPreset; "" omits the key
	ParentSession   string // header parentSession; set by Fork and SubagentOf
	Subagent        bool   // header origin:"subagent" plus subagent/* descriptor events
	DelegationDepth int64  // header delegationDepth; SubagentOf sets parent+1

	Turns            int   // turns Generate writes; default DefaultTurns
	TargetBytes      int64 // if > 0, Generate keeps adding turns until the log is this big
	StepsPerTurn     int   // maximum steps per turn; default DefaultStepsPerTurn
	ToolCallsPerStep int   // maximum tool calls per step; default DefaultToolCallsPerStep
	ChunkTokens      int   // mean streamed tokens per content block; default DefaultChunkTokens
	ToolResultBytes  int   // mean tool-result text size; default DefaultToolResultBytes

	Families    Family      // families to produce; 0 = AllFamilies
	ASCII       bool        // plain ASCII text only (default mixes CJK and astral-plane emoji)
	HugeLine    bool        // one tool result larger than 2 MiB
	NoPack      bool        // never write packed chunk rows (packChunks:false)
	SeqEncoding SeqEncoding // physical sourceEventSeqs encoding
	BatchLines  int         // maximum records per append batch (zstd frame); 0 = random 1..48
}

// withDefaults returns o with zero fields replaced by defaults.
func (o Options) withDefaults() Options {
	if o.CreatedAt == 0 {
		o.CreatedAt = DefaultCreatedAt
	}
	if o.Turns <= 0 {
		o.Turns = DefaultTurns
	}
	if o.StepsPerTurn <= 0 {
		o.StepsPerTurn = DefaultStepsPerTurn
	}
	if o.ToolCallsPerStep <= 0 {
		o.ToolCallsPerStep = DefaultToolCallsPerStep
	}
	if o.ChunkTokens <= 0 {
		o.ChunkTokens = DefaultChunkTokens
	}
	if o.ToolResultBytes <= 0 {
		o.ToolResultBytes = DefaultToolResultBytes
	}
	if o.Families == 0 {
		o.Families = AllFamilies
	}
	return o
}
