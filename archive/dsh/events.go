package dsh

import "strings"

// v0EventTypes is the closed first-party V0 inventory: the 51 `event:…` roots of the
// dsh-v0.1.2-rc.1 catalogue (54 roots minus the two headers and the envelope). The
// frozen V0→V1 edge refuses anything else, so membership here is what "known" means.
var v0EventTypes = map[string]struct{}{
	"agent-preset/selected":                  {},
	"agent/inbox/spliced":                    {},
	"approval/asked":                         {},
	"approval/decided":                       {},
	"approval/policy":                        {},
	"assistant/chunk":                        {},
	"assistant/message":                      {},
	"command/done":                           {},
	"command/run":                            {},
	"compaction/end":                         {},
	"compaction/prune":                       {},
	"compaction/start":                       {},
	"compaction/summary":                     {},
	"feedback/record":                        {},
	"goal/change":                            {},
	"hook/invoked":                           {},
	"hook/result":                            {},
	"llm/retry":                              {},
	"llm/retry-started":                      {},
	"model/selection":                        {},
	"permission/preset":                      {},
	"plan/mode":                              {},
	"request/context":                        {},
	"request/header":                         {},
	"sandbox/mode":                           {},
	"schedule/change":                        {},
	"session-log-deepseek/delivery-accepted": {},
	"session/end-seed":                       {},
	"session/title":                          {},
	"session/title-llm-request":              {},
	"step/end":                               {},
	"step/start":                             {},
	"subagent/descriptor":                    {},
	"subagent/model-selection-policy":        {},
	"team/member":                            {},
	"team/message/delivered":                 {},
	"team/message/queued":                    {},
	"team/task":                              {},
	"todo/write":                             {},
	"tool-workflow/agent-end":                {},
	"tool-workflow/agent-start":              {},
	"tool-workflow/run-end":                  {},
	"tool-workflow/run-start":                {},
	"tool/call":                              {},
	"tool/code-dispatch":                     {},
	"tool/code-dispatch-start":               {},
	"tool/result":                            {},
	"turn/end":                               {},
	"turn/start":                             {},
	"user/message":                           {},
	"web/deepseek-search-llm-request":        {},
}

// KnownEventType reports whether t is one of the 51 event types of the released V0
// inventory. Legacy early-V0 types (see LegacyEventType) are not known: the frozen
// reader only accepts them through its normalisation edge.
func KnownEventType(t string) bool {
	_, ok := v0EventTypes[t]
	return ok
}

// IsSurfaceType reports whether events of type t are surface events: the only types
// that may carry surfaceOp/sourceEventSeqs and join the model-visible history.
func IsSurfaceType(t string) bool {
	switch t {
	case "user/message", "assistant/message", "tool/result":
		return true
	}
	return false
}

// LegacyEventType reports whether t is an event type written only by early V0 tags
// and retired before dsh-v0.1.2-rc.1: steering/message and compact/* (renamed to
// user/message and compaction/* by the V0→V1 migration), request/header-delta and
// mode/set (refused by that migration). An archive keeps them verbatim and flags them.
func LegacyEventType(t string) bool {
	switch t {
	case "steering/message", "request/header-delta", "mode/set":
		return true
	}
	// "compact/" (with the slash) so that the current compaction/* never matches.
	return strings.HasPrefix(t, "compact/")
}
