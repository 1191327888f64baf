package archive

import (
	"time"

	"github.com/logbook/logbook/archive/format"
)

// Session is one archived agent session with its header facts and derived totals.
type Session struct {
	ID              string    `json:"id"`
	Agent           string    `json:"agent"`
	Title           string    `json:"title"`
	TitleSource     string    `json:"title_source,omitempty"`
	Cwd             string    `json:"cwd,omitempty"`
	Project         string    `json:"project"`
	ParentSession   string    `json:"parent_session,omitempty"`
	SeedLength      *int64    `json:"seed_length"`
	Origin          string    `json:"origin,omitempty"`
	DelegationDepth int64     `json:"delegation_depth"`
	AgentPreset     string    `json:"agent_preset,omitempty"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"` // time of the last event
	Models          []string  `json:"models"`
	Records         int64     `json:"records"`
	Events          int64     `json:"events"`
	LastSeq         int64     `json:"last_seq"`
	Turns           int64     `json:"turns"`
	Messages        int64     `json:"messages"`
	ToolCalls       int64     `json:"tool_calls"`
	Tokens          Tokens    `json:"tokens"`
	Health          string    `json:"health"` // ok | recovered | corrupt | gone
	Policy          string    `json:"approval_policy,omitempty"`
	SandboxMode     string    `json:"sandbox_mode,omitempty"`
	Path            string    `json:"path,omitempty"`
}

// Tokens totals the provider-reported usage of a session's assistant messages.
type Tokens struct {
	Input     int64 `json:"input"`
	Output    int64 `json:"output"`
	Reasoning int64 `json:"reasoning"`
	CacheRead int64 `json:"cache_read"`
}

// SessionFilter narrows ListSessions.
type SessionFilter struct {
	Project string
	Limit   int
	Offset  int
}

// Message is an assembled message on (or shadowed from) the surface.
type Message struct {
	SessionID   string    `json:"session_id"`
	Seq         int64     `json:"seq"`
	Time        time.Time `json:"time"`
	Turn        *int64    `json:"turn"`
	Step        *int64    `json:"step"`
	Role        string    `json:"role"` // user | assistant | tool
	Kind        string    `json:"kind"` // human | injected | assistant | tool_result
	SourceKind  string    `json:"source_kind,omitempty"`
	Plugin      string    `json:"plugin,omitempty"`
	Text        string    `json:"text"`
	Reasoning   string    `json:"reasoning,omitempty"`
	Model       string    `json:"model,omitempty"`
	Surface     string    `json:"surface"` // current | shadowed
	ShadowedBy  *int64    `json:"shadowed_by,omitempty"`
	Interrupted bool      `json:"interrupted,omitempty"`
}

// ToolCall is a tool call paired with its result by callId.
type ToolCall struct {
	SessionID  string     `json:"session_id"`
	CallID     string     `json:"call_id"`
	Name       string     `json:"name"`
	Arguments  string     `json:"arguments"`
	Turn       *int64     `json:"turn"`
	Step       *int64     `json:"step"`
	CallSeq    int64      `json:"call_seq"`
	CallTime   time.Time  `json:"call_time"`
	ResultSeq  *int64     `json:"result_seq"`
	ResultTime *time.Time `json:"result_time"`
	Output     *string    `json:"output"`
	IsError    bool       `json:"is_error"`
	ErrorName  string     `json:"error_name,omitempty"`
	ErrorCode  string     `json:"error_code,omitempty"`
}

// Approval is one approval request and its decision (Outcome nil while undecided).
type Approval struct {
	SessionID        string     `json:"session_id"`
	Agent            string     `json:"agent,omitempty"` // the session's agent, in archive-wide lists
	ID               string     `json:"id"`
	ToolName         string     `json:"toolName"`
	CallID           string     `json:"callId,omitempty"`
	Reason           string     `json:"reason,omitempty"`
	Turn             *int64     `json:"turn"`
	AskedSeq         *int64     `json:"asked_seq"`
	AskedAt          *time.Time `json:"asked_at"`
	DecidedSeq       *int64     `json:"decided_seq"`
	DecidedAt        *time.Time `json:"decided_at"`
	Outcome          *string    `json:"outcome"`
	Policy           string     `json:"policy,omitempty"`
	SandboxMode      string     `json:"sandbox_mode,omitempty"`
	PermissionPreset string     `json:"permission_preset,omitempty"`
}

// Compaction is one compaction bracket (or a tool-result prune).
type Compaction struct {
	SessionID      string     `json:"session_id"`
	Agent          string     `json:"agent,omitempty"` // the session's agent, in archive-wide lists
	CompactionID   string     `json:"compactionId"`
	Kind           string     `json:"kind"` // compaction | prune
	Turn           *int64     `json:"turn"`
	Status         string     `json:"status"` // open | ok | failed
	StartedAt      *time.Time `json:"started_at"`
	EndedAt        *time.Time `json:"ended_at"`
	StartSeq       *int64     `json:"start_seq"`
	SummarySeq     *int64     `json:"summary_seq"`
	ReplaceSeq     *int64     `json:"replace_seq"`
	EndSeq         *int64     `json:"end_seq"`
	Summary        string     `json:"summary,omitempty"`
	ShadowedStart  *int64     `json:"shadowed_start"`
	ShadowedEnd    *int64     `json:"shadowed_end"`
	ShadowedSeqs   []int64    `json:"shadowedSeqs"`
	ShadowedTokens *int64     `json:"shadowed_tokens"`
	Provider       string     `json:"provider,omitempty"`
	Model          string     `json:"model,omitempty"`
	Error          *string    `json:"error"`
}

// ScheduleItem is a folded schedule with its state at a given instant.
type ScheduleItem struct {
	SessionID      string     `json:"session_id"`
	ID             string     `json:"id"`
	Kind           string     `json:"kind"` // at | after | every
	Prompt         string     `json:"prompt"`
	AfterSeconds   *int64     `json:"after_seconds,omitempty"`
	EverySeconds   *int64     `json:"every_seconds,omitempty"`
	Status         string     `json:"status"` // active | deleted | completed
	State          string     `json:"state"`  // scheduled | overdue | deleted | completed
	ScheduledAt    time.Time  `json:"scheduled_at"`
	NextFire       *time.Time `json:"next_fire"`
	CreatedSeq     int64      `json:"created_seq"`
	CreatedAt      time.Time  `json:"created_at"`
	DispatchCount  int64      `json:"dispatch_count"`
	LastAcceptedAt *time.Time `json:"last_accepted_at,omitempty"`
	// The fields below are Logbook's side (schedule_ops.go): State and NextFire above
	// stay what the session's own fold says. Cwd is the session's working directory.
	Cwd          string     `json:"cwd,omitempty"`
	Override     string     `json:"override,omitempty"` // paused | dismissed
	SnoozedUntil *time.Time `json:"snoozed_until,omitempty"`
	// LogbookState is what Logbook does with the schedule at the given instant (one of
	// the Logbook* constants) and LogbookNextFire when it fires next (nil when it will
	// not fire on its own).
	LogbookState    string        `json:"logbook_state"`
	LogbookNextFire *time.Time    `json:"logbook_next_fire"`
	FireCount       int64         `json:"fire_count"` // fire-history rows (fires, skips, questions)
	LastFire        *ScheduleFire `json:"last_fire,omitempty"`
}

// FileReport is the verdict on one imported or checked file. Its JSON shape is a
// stable interface of `logbook import --json` and `logbook check --json`.
type FileReport struct {
	Path          string    `json:"path"`
	SessionID     string    `json:"session_id"`
	Verdict       Verdict   `json:"verdict"`
	Error         *Problem  `json:"error"`
	Warnings      []Problem `json:"warnings"`
	Records       int64     `json:"records"`
	LogicalEvents int64     `json:"logical_events"`
	LastSeq       int64     `json:"last_seq"`
	Changed       bool      `json:"changed"`
	Action        string    `json:"action"` // new | appended | unchanged | rewritten | checked | failed
	Bytes         int64     `json:"bytes"`  // physical bytes read in this run
	// Agent and Format name the source's format and its on-disk layout
	// ("openhands", "sdk-eventlog"; "dsh", "v0" or "v0-zstd"). A file whose
	// import or check failed before its format read it leaves both out.
	Agent  string `json:"agent,omitempty"`
	Format string `json:"format,omitempty"`
}

// TornTail reports whether the report says the file ends in a torn line or
// frame: the verdict a log being written gets between two of its writes.
func (r FileReport) TornTail() bool {
	return r.Verdict == VerdictRecovered && r.Error != nil && r.Error.Kind == format.KindTornTail
}

// ImportReport sums up one import run.
type ImportReport struct {
	Files   []FileReport `json:"files"`
	Gone    []string     `json:"gone"` // sessions whose files disappeared upstream
	Summary Summary      `json:"summary"`
}

// Summary counts files by verdict and action.
type Summary struct {
	Files     int   `json:"files"`
	OK        int   `json:"ok"`
	Recovered int   `json:"recovered"`
	Corrupt   int   `json:"corrupt"`
	Unsupp    int   `json:"unsupported"`
	Failed    int   `json:"failed"` // a fault of the machine or the run: read again next time
	Changed   int   `json:"changed"`
	Unchanged int   `json:"unchanged"`
	Events    int64 `json:"events"`
	Bytes     int64 `json:"bytes"`
}

// Block kinds: the searchable units of a session.
const (
	BlockHuman      = "human"       // a prompt the person typed
	BlockInjected   = "injected"    // context the harness injected (plugins, skills, checkpoints…)
	BlockAssistant  = "assistant"   // assistant answer text
	BlockReasoning  = "reasoning"   // assistant reasoning
	BlockToolCall   = "tool_call"   // a tool call: name and arguments
	BlockToolResult = "tool_result" // a tool's output
	BlockCompaction = "compaction"  // a compaction summary
	BlockApproval   = "approval"    // an approval request and its outcome
	BlockTitle      = "title"       // the session title
)

// Block is one searchable unit of a session. ID is stable across imports, so the
// index can replace a block in place. Seq names the event the UI jumps to.
type Block struct {
	ID        string    `json:"id"`
	SessionID string    `json:"session_id"`
	Project   string    `json:"project"`
	Agent     string    `json:"agent"`
	Kind      string    `json:"kind"`
	Role      string    `json:"role"`
	Tool      string    `json:"tool,omitempty"`
	Time      time.Time `json:"time"`
	Turn      *int64    `json:"turn"`
	Step      *int64    `json:"step"`
	Seq       int64     `json:"seq"`
	Surface   string    `json:"surface"` // current | shadowed | log-only
	IsError   bool      `json:"is_error"`
	Text      string    `json:"text"`
}
