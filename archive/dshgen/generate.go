package dshgen

// act is a bitmask of scripted features for one turn.
type act uint32

// In-turn features.
const (
	actTitles act = 1 << iota
	actHooks
	actInbox
	actInject
	actApproveOK
	actApproveDeny
	actApproveOther // cancelled + unavailable
	actRetry
	actTodo
	actSchedules
	actCompact
	actCompactFail
	actPrune
	actHuge
	actUnknown
	actInterleave
	actNeedsTools = actApproveOK | actApproveDeny | actApproveOther | actTodo | actSchedules | actHuge | actPrune
)

// between is a bitmask of features written between turns.
type between uint32

// Between-turn features.
const (
	btCommand between = 1 << iota
	btGoal
	btPlanOn
	btPlanOff
	btModel
	btDispatchAt
	btDispatchEvery
	btDelete
	btManualCompact
	btResume
	btRename
	btGoalDone
)

// plannedTurn is the script for one turn.
type plannedTurn struct {
	before between
	in     act
	end    EndReason
}

// Generate writes a whole session: the preamble, Options.Turns scripted turns (more if
// Options.TargetBytes asks for it) covering every enabled family once Turns >= 4, and
// trailing between-turn events. It is deterministic for a given Options.
func Generate(o Options) *Log {
	s := New(o)
	s.play()
	return s.Log()
}

// script is the coverage plan: turn i of a long-enough session.
func (s *Session) script() []plannedTurn {
	f := s.o.Families
	p := make([]plannedTurn, 5)
	on := func(fam Family, a act) act {
		if f.Has(fam) {
			return a
		}
		return 0
	}
	onB := func(fam Family, b between) between {
		if f.Has(fam) {
			return b
		}
		return 0
	}
	p[0].in = on(FamilyTitles, actTitles) | on(FamilyHooks, actHooks) | on(FamilyInbox, actInbox) |
		on(FamilyInjected, actInject) | on(FamilyApprovals, actApproveOK) | on(FamilySchedules, actSchedules) |
		on(FamilyTodos, actTodo) | on(FamilyUnknownIgnorable, actUnknown)
	if s.o.HugeLine {
		p[0].in |= actHuge
	}
	p[1].before = onB(FamilyCommands, btCommand) | onB(FamilyGoals, btGoal) | onB(FamilyPolicy, btPlanOn|btModel)
	p[1].in = on(FamilyRetries, actRetry) | on(FamilyApprovals, actApproveDeny) | on(FamilyPrune, actPrune) |
		on(FamilyCompaction, actCompact) | on(FamilyInbox, actInterleave)
	p[2].before = onB(FamilySchedules, btDispatchAt) | onB(FamilyResume, btResume) | onB(FamilyTitles, btRename) |
		onB(FamilyPolicy, btPlanOff)
	p[2].in = on(FamilyApprovals, actApproveOther) | on(FamilyCompaction, actCompactFail)
	p[3].before = onB(FamilyCompaction, btManualCompact) | onB(FamilySchedules, btDispatchEvery)
	p[4].before = onB(FamilySchedules, btDelete) | onB(FamilyGoals, btGoalDone)
	if f.Has(FamilyTurnEnds) {
		p[1].end, p[2].end, p[3].end = EndMaxTokens, EndError, EndAborted
	}
	return p
}

// play runs the preamble, the planned and random turns, and the tail.
func (s *Session) play() {
	if s.o.Families.Has(FamilyPolicy) || s.o.Subagent {
		s.Preamble()
	}
	plan := make([]plannedTurn, s.o.Turns)
	var tail between
	for i, pt := range s.script() {
		k := min(i, len(plan)-1)
		if i < len(plan) {
			plan[i].before |= pt.before
		} else {
			tail |= pt.before
		}
		plan[k].in |= pt.in
		if plan[k].end == "" || plan[k].end == EndCompleted {
			plan[k].end = pt.end
		}
	}
	for i := 0; i < len(plan) || (s.o.TargetBytes > 0 && s.Bytes() < s.o.TargetBytes); i++ {
		var pt plannedTurn
		if i >= 5 {
			pt = s.randomTurn()
		}
		if i < len(plan) {
			pt.before |= plan[i].before
			pt.in |= plan[i].in
			if pt.end == "" {
				pt.end = plan[i].end
			}
		}
		deferred := s.betweenTurns(pt.before)
		if i+1 < len(plan) {
			plan[i+1].before |= deferred
		} else {
			tail |= deferred
		}
		s.playTurn(pt.in, pt.end)
	}
	s.betweenTurns(tail)
}

// randomTurn draws features for a turn past the coverage script.
func (s *Session) randomTurn() plannedTurn {
	f := s.o.Families
	var pt plannedTurn
	chance := func(fam Family, pct int) bool { return f.Has(fam) && s.rng.IntN(100) < pct }
	if chance(FamilyInjected, 30) {
		pt.in |= actInject
	}
	if chance(FamilyHooks, 10) {
		pt.in |= actHooks
	}
	if chance(FamilyInbox, 20) {
		pt.in |= actInbox
	}
	if chance(FamilyApprovals, 8) {
		pt.in |= []act{actApproveOK, actApproveDeny, actApproveOther}[s.rng.IntN(3)]
	}
	if chance(FamilyRetries, 4) {
		pt.in |= actRetry
	}
	if chance(FamilyTodos, 8) {
		pt.in |= actTodo
	}
	if chance(FamilyPrune, 4) {
		pt.in |= actPrune
	}
	if f.Has(FamilyCompaction) && (len(s.surface) > 60 || s.rng.IntN(100) < 2) {
		pt.in |= actCompact
	}
	if chance(FamilySchedules, 3) {
		pt.in |= actSchedules
	}
	if chance(FamilyCommands, 3) {
		pt.before |= btCommand
	}
	if chance(FamilyResume, 1) {
		pt.before |= btResume
	}
	if chance(FamilySchedules, 10) {
		pt.before |= btDispatchAt | btDispatchEvery
	}
	if chance(FamilyTurnEnds, 6) {
		pt.end = []EndReason{EndAborted, EndError, EndMaxTokens}[s.rng.IntN(3)]
	}
	return pt
}

// betweenTurns writes between-turn features and returns those that cannot be written
// yet (e.g. a dispatch before any schedule exists).
func (s *Session) betweenTurns(b between) between {
	var deferred between
	s.now += 1000 + int64(s.rng.IntN(30000))
	if b&btResume != 0 {
		s.now += 60_000 + int64(s.rng.IntN(600_000))
		s.EndSeed()
	}
	if b&btCommand != 0 {
		s.PermissionCommand([]string{"read-only", "workspace-write", "danger-full-access"}[s.rng.IntN(3)])
	}
	if b&btGoal != 0 {
		s.Command("goal", " "+s.txt.sentence(8), func() {
			s.goalID = "goal-" + s.txt.uuid()
			s.goal("create", s.goalID, 1, "active", s.txt.sentence(12))
		})
	}
	if b&btGoalDone != 0 && s.goalID != "" {
		s.goal("complete", s.goalID, 2, "complete", s.txt.sentence(12))
	}
	if b&btModel != 0 {
		s.SelectModel("deepseek-official", "deepseek-v4-pro")
	}
	if b&btPlanOn != 0 {
		s.PlanMode(true)
	}
	if b&btPlanOff != 0 {
		s.PlanMode(false)
	}
	if b&btRename != 0 {
		s.Title(s.txt.sentence(4), "user", nil)
	}
	if b&btDispatchAt != 0 {
		if id := s.oneShot(); id != "" {
			s.ScheduleDispatch(id)
		} else {
			deferred |= btDispatchAt
		}
	}
	if b&btDispatchEvery != 0 {
		if id := s.activeSchedule("every"); id != "" {
			s.ScheduleDispatch(id)
		} else {
			deferred |= btDispatchEvery
		}
	}
	if b&btDelete != 0 {
		if id := s.oneShot(); id != "" {
			s.ScheduleDelete(id)
		} else {
			deferred |= btDelete
		}
	}
	if b&btManualCompact != 0 && !s.ManualCompact() {
		deferred |= btManualCompact
	}
	return deferred
}

// oneShot returns an active "at" or "after" schedule id, or "".
func (s *Session) oneShot() string {
	if id := s.activeSchedule("at"); id != "" {
		return id
	}
	return s.activeSchedule("after")
}
