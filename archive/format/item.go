package format

// Item is one thing the archive's views derive from an event. A format turns each
// event it projects into zero or more items, in the order they apply; the store
// writes each to its table and keeps the session's totals (archive/project.go). A
// format never sees SQL, and the store never sees a format's event names.
type Item interface{ item() }

// MessageItem is a message of the conversation: a prompt the person typed, context
// the harness injected, an assistant's answer, or a tool's output. User and
// assistant messages count as the session's messages; a tool's output does not.
type MessageItem struct {
	Role        string // user | assistant | tool
	Kind        string // human | injected | assistant | tool_result
	SourceKind  string // the format's own word for who wrote it
	Plugin      string // what injected it, for injected context
	ID          string
	Text        string
	Reasoning   string
	Provider    string
	Model       string
	Interrupted bool
	CallID      string // the tool call a tool's output answers
}

// IsPrompt reports whether a message of this role and kind is a prompt a person
// sent: a user message that is not context the harness injected. In a log that
// names no turns (OpenHands) each prompt starts the next turn; the archive's
// projection, its timeline and the exports all number turns by this one rule.
func IsPrompt(role, kind string) bool { return role == "user" && kind != "injected" }

// UsageItem adds provider-reported token usage to the session's totals.
type UsageItem struct{ Input, Output, Reasoning, CacheRead int64 }

// ModelItem names a model the session used.
type ModelItem struct{ Provider, Model string }

// ToolCallItem is a tool call, paired with its result by CallID.
type ToolCallItem struct{ CallID, Name, Arguments string }

// ToolResultItem is the outcome of a tool call; its output is the MessageItem that
// follows it.
type ToolResultItem struct {
	CallID    string
	IsError   bool
	ErrorName string
	ErrorCode string
}

// Setting names a part of the session's working state that approvals record as in
// force when they were asked.
type Setting int

// Settings.
const (
	SettingApprovalPolicy Setting = iota
	SettingSandboxMode
	SettingPermissionPreset
)

// SettingItem changes a setting from this event on.
type SettingItem struct {
	Setting Setting
	Value   string
}

// ApprovalAskedItem is a request for approval, decided by the ApprovalDecidedItem
// of the same ID.
type ApprovalAskedItem struct{ ID, ToolName, CallID, Reason string }

// ApprovalDecidedItem is the decision on an approval request.
type ApprovalDecidedItem struct{ ID, Outcome string }

// CompactionStartItem opens a compaction bracket.
type CompactionStartItem struct{ ID string }

// CompactionSummaryItem is what a compaction (or, with Prune, a tool-output prune,
// which is complete at once) replaced: the summary and the events it shadows.
type CompactionSummaryItem struct {
	ID             string
	Prune          bool
	Summary        string
	ShadowedStart  *int64
	ShadowedEnd    *int64
	ShadowedSeqs   []int64
	ShadowedTokens *int64
	Provider       string
	Model          string
}

// CompactionReplaceItem says this event is the message that replaced the context
// of compaction ID.
type CompactionReplaceItem struct{ ID string }

// CompactionEndItem closes a compaction bracket; Error is why it failed, when it did.
type CompactionEndItem struct {
	ID     string
	Failed bool
	Error  string
}

// TitleItem sets the session's title; Source, when set, says who gave it.
type TitleItem struct {
	Title  string
	Source *string
}

// ScheduleChangeItem says the event changes the session's schedules: the store keeps
// its record for the format's ScheduleFold.
type ScheduleChangeItem struct{}

// TurnStartItem starts a turn.
type TurnStartItem struct{}

// EndSeedItem marks where a resumed or forked session's own events begin.
type EndSeedItem struct{}

func (MessageItem) item()           {}
func (UsageItem) item()             {}
func (ModelItem) item()             {}
func (ToolCallItem) item()          {}
func (ToolResultItem) item()        {}
func (SettingItem) item()           {}
func (ApprovalAskedItem) item()     {}
func (ApprovalDecidedItem) item()   {}
func (CompactionStartItem) item()   {}
func (CompactionSummaryItem) item() {}
func (CompactionReplaceItem) item() {}
func (CompactionEndItem) item()     {}
func (TitleItem) item()             {}
func (ScheduleChangeItem) item()    {}
func (TurnStartItem) item()         {}
func (EndSeedItem) item()           {}
