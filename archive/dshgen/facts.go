package dshgen

// Facts are the ground truth a generated log was built from, for tests to compare a
// decoder's folds against. Seqs are logical event seqs. A fork's Facts describe only
// its own events (from seedLength on).
type Facts struct {
	Turns         []TurnFact
	HumanMessages []int64 // seqs of human-prompt user/message events
	Approvals     []ApprovalFact
	Compactions   []CompactionFact
	Prunes        []PruneFact
	Schedules     []ScheduleFact
	Titles        []TitleFact
	EndSeeds      []int64 // seqs of session/end-seed markers
}

// TurnFact is one turn/start … turn/end bracket.
type TurnFact struct {
	Turn     int64
	StartSeq int64
	EndSeq   int64
	Reason   EndReason
	Steps    int
}

// ApprovalFact is one approval/asked and its decision (DecidedSeq -1 when undecided).
type ApprovalFact struct {
	ID         string
	CallID     string
	AskedSeq   int64
	DecidedSeq int64
	Outcome    string // an Approval* constant; ApprovalPending when undecided
}

// CompactionFact is one compaction bracket. Turn 0 means the bracket's turn is null
// (manual compaction between turns). A failed bracket has no summary or message
// (SummarySeq and MessageSeq -1) and its compaction/end carries an error.
type CompactionFact struct {
	ID              string
	Turn            int64
	SourceCommandID string
	StartSeq        int64
	SummarySeq      int64
	MessageSeq      int64 // the replacing user/message
	EndSeq          int64
	ShadowedSeqs    []int64 // exact surface span replaced, in surface order
	Failed          bool
}

// PruneFact is one compaction/prune and the tool/result that replaced ShadowedSeq.
type PruneFact struct {
	PruneSeq       int64
	ReplacementSeq int64
	ShadowedSeq    int64
}

// TitleFact is one session/title event.
type TitleFact struct {
	Seq         int64
	Title       string
	Source      string // fallback, provider or user
	MessageSeqs []int64
}

// ScheduleFact is one schedule created by schedule/change, with the state a correct
// fold of the log's own events must reach.
type ScheduleFact struct {
	ID           string
	Kind         string // at, after or every
	Prompt       string
	CreatedSeq   int64
	ScheduledAt  string // as created
	AfterSeconds int64  // kind after
	EverySeconds int64  // kind every
	Active       bool   // still scheduled after the fold
	NextAt       string // expected scheduledAt after the fold (active records)
	DeletedSeq   int64  // -1 if never deleted
	Dispatches   []int64
}
