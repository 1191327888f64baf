package openhands

import (
	"encoding/json"
	"strings"
)

// Usage is a cumulative token and cost total.
type Usage struct {
	Cost             float64 `json:"cost"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	ReasoningTokens  int64   `json:"reasoning_tokens"`
}

// max keeps the larger of each figure: totals are cumulative, so a smaller
// one is an older snapshot (doc §1.5).
func (u *Usage) max(o Usage) {
	u.Cost = max(u.Cost, o.Cost)
	u.PromptTokens = max(u.PromptTokens, o.PromptTokens)
	u.CompletionTokens = max(u.CompletionTokens, o.CompletionTokens)
	u.CacheReadTokens = max(u.CacheReadTokens, o.CacheReadTokens)
	u.CacheWriteTokens = max(u.CacheWriteTokens, o.CacheWriteTokens)
	u.ReasoningTokens = max(u.ReasoningTokens, o.ReasoningTokens)
}

// Metadata is what a conversation says about itself (doc §2.1, §4, §5).
type Metadata struct {
	// ConversationID is the id the files give (base_state, meta, V0
	// metadata), normalised to a dashed UUID when it is one.
	ConversationID string `json:"conversation_id,omitempty"`
	Title          string `json:"title,omitempty"`
	// TitleFrom says where Title came from: "meta", "metadata" or
	// "first-user-message".
	TitleFrom string `json:"title_from,omitempty"`
	Model     string `json:"model,omitempty"`
	AgentKind string `json:"agent_kind,omitempty"`
	Usage     Usage  `json:"usage"`
	// CreatedAt and UpdatedAt are the original strings: meta/metadata times
	// when present, else the first and last event timestamps.
	CreatedAt string `json:"created_at,omitempty"`
	UpdatedAt string `json:"updated_at,omitempty"`
	// Status is the last execution status (agent_status in 2025 files).
	Status string `json:"status,omitempty"`
	// ConfirmationPolicy is the confirmation policy kind in base_state
	// ("NeverConfirm", "AlwaysConfirm", "ConfirmRisky").
	ConfirmationPolicy string            `json:"confirmation_policy,omitempty"`
	Tags               map[string]string `json:"tags,omitempty"`
	// ParentID is parent_conversation_id; ForkedFrom the conversation this
	// one was forked from; LeafEventID the active branch head.
	ParentID    string `json:"parent_id,omitempty"`
	ForkedFrom  string `json:"forked_from,omitempty"`
	LeafEventID string `json:"leaf_event_id,omitempty"`
}

// NormalizeID writes a 32-hex or dashed UUID as a lowercase dashed UUID and
// returns anything else unchanged.
func NormalizeID(s string) string {
	h := strings.ReplaceAll(strings.ToLower(s), "-", "")
	if len(h) != 32 || strings.Trim(h, "0123456789abcdef") != "" {
		return s
	}
	if len(s) != 32 && len(s) != 36 {
		return s
	}
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

type sideJSON struct {
	ID                     string          `json:"id"`
	ConversationID         string          `json:"conversation_id"`
	Title                  string          `json:"title"`
	CreatedAt              string          `json:"created_at"`
	UpdatedAt              string          `json:"updated_at"`
	LastUpdatedAt          string          `json:"last_updated_at"`
	LLMModel               string          `json:"llm_model"`
	AgentKind              string          `json:"agent_kind"`
	ExecutionStatus        string          `json:"execution_status"`
	AgentStatus            string          `json:"agent_status"`
	Tags                   json.RawMessage `json:"tags"`
	ParentConversationID   string          `json:"parent_conversation_id"`
	ForkedFromConversation string          `json:"forked_from_conversation_id"`
	LeafEventID            string          `json:"leaf_event_id"`
	AccumulatedCost        float64         `json:"accumulated_cost"`
	PromptTokens           int64           `json:"prompt_tokens"`
	CompletionTokens       int64           `json:"completion_tokens"`
	Agent                  *agentJSON      `json:"agent"`
	Stats                  *statsJSON      `json:"stats"`
	Metrics                *metricsJSON    `json:"metrics"`
	ConfirmationPolicy     *kindOnly       `json:"confirmation_policy"`
}

type agentJSON struct {
	Kind     string `json:"kind"`
	ACPModel string `json:"acp_model"`
	LLM      *struct {
		Model string `json:"model"`
	} `json:"llm"`
}

type statsJSON struct {
	UsageToMetrics   map[string]metricsJSON `json:"usage_to_metrics"`
	ServiceToMetrics map[string]metricsJSON `json:"service_to_metrics"`
}

type metricsJSON struct {
	AccumulatedCost       float64 `json:"accumulated_cost"`
	AccumulatedTokenUsage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		CacheReadTokens  int64 `json:"cache_read_tokens"`
		CacheWriteTokens int64 `json:"cache_write_tokens"`
		ReasoningTokens  int64 `json:"reasoning_tokens"`
	} `json:"accumulated_token_usage"`
}

func (m metricsJSON) usage() Usage {
	u := Usage{Cost: m.AccumulatedCost}
	if t := m.AccumulatedTokenUsage; t != nil {
		u.PromptTokens, u.CompletionTokens = t.PromptTokens, t.CompletionTokens
		u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens = t.CacheReadTokens, t.CacheWriteTokens, t.ReasoningTokens
	}
	return u
}

// sum adds the buckets (agent, condenser, ...) of a stats snapshot.
func (s *statsJSON) sum() Usage {
	var u Usage
	if s == nil {
		return u
	}
	for _, buckets := range []map[string]metricsJSON{s.UsageToMetrics, s.ServiceToMetrics} {
		for _, m := range buckets {
			b := m.usage()
			u.Cost += b.Cost
			u.PromptTokens += b.PromptTokens
			u.CompletionTokens += b.CompletionTokens
			u.CacheReadTokens += b.CacheReadTokens
			u.CacheWriteTokens += b.CacheWriteTokens
			u.ReasoningTokens += b.ReasoningTokens
		}
	}
	return u
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// side returns the bytes of the side file with the given role.
func (c *Conversation) side(role FileRole) []byte {
	if role == RoleMeta && c.zipMeta != nil {
		return c.zipMeta
	}
	for _, f := range c.Files {
		if f.Role == role {
			return f.Data
		}
	}
	return nil
}

// buildMetadata merges meta.json, base_state.json, V0 metadata.json and the
// events, in that order of trust.
func buildMetadata(c *Conversation) Metadata {
	var md Metadata
	var meta, state, v0 sideJSON
	_ = json.Unmarshal(c.side(RoleMeta), &meta)
	_ = json.Unmarshal(c.side(RoleState), &state)
	_ = json.Unmarshal(c.side(RoleMetadata), &v0)
	md.ConversationID = NormalizeID(firstNonEmpty(state.ID, meta.ID, v0.ConversationID))
	switch {
	case meta.Title != "":
		md.Title, md.TitleFrom = meta.Title, "meta"
	case v0.Title != "":
		md.Title, md.TitleFrom = v0.Title, "metadata"
	}
	agent := state.Agent
	if agent == nil {
		agent = meta.Agent
	}
	if agent != nil {
		md.AgentKind = agent.Kind
		if agent.LLM != nil {
			md.Model = agent.LLM.Model
		}
		md.Model = firstNonEmpty(md.Model, agent.ACPModel)
	}
	md.Model = firstNonEmpty(md.Model, meta.LLMModel, v0.LLMModel)
	md.AgentKind = firstNonEmpty(md.AgentKind, meta.AgentKind)
	md.CreatedAt = firstNonEmpty(meta.CreatedAt, v0.CreatedAt)
	md.UpdatedAt = firstNonEmpty(meta.UpdatedAt, meta.LastUpdatedAt, v0.LastUpdatedAt)
	md.Status = firstNonEmpty(state.ExecutionStatus, state.AgentStatus, meta.ExecutionStatus)
	md.Tags = tags(state.Tags)
	if md.Tags == nil {
		md.Tags = tags(meta.Tags)
	}
	md.ParentID = NormalizeID(firstNonEmpty(meta.ParentConversationID, state.ParentConversationID))
	md.ForkedFrom = NormalizeID(firstNonEmpty(meta.ForkedFromConversation, state.ForkedFromConversation))
	md.LeafEventID = state.LeafEventID
	if state.ConfirmationPolicy != nil {
		md.ConfirmationPolicy = state.ConfirmationPolicy.Kind
	}
	md.Usage.max(state.Stats.sum())
	if meta.Metrics != nil {
		md.Usage.max(meta.Metrics.usage())
	}
	md.Usage.max(Usage{Cost: v0.AccumulatedCost, PromptTokens: v0.PromptTokens, CompletionTokens: v0.CompletionTokens})
	eventMetadata(c, &md)
	return md
}

// tags accepts the SDK's {key: value} map or a list of strings.
func tags(raw json.RawMessage) map[string]string {
	var m map[string]string
	if json.Unmarshal(raw, &m) == nil && len(m) > 0 {
		return m
	}
	var l []string
	if json.Unmarshal(raw, &l) == nil && len(l) > 0 {
		m = make(map[string]string, len(l))
		for _, t := range l {
			m[t] = ""
		}
		return m
	}
	return nil
}

// eventMetadata fills what the side files left open from the events:
// title from the first user message, times, status and stats.
func eventMetadata(c *Conversation, md *Metadata) {
	if len(c.Records) == 0 {
		return
	}
	if md.CreatedAt == "" {
		md.CreatedAt = c.Records[0].Event.Timestamp
	}
	if md.UpdatedAt == "" {
		md.UpdatedAt = c.Records[len(c.Records)-1].Event.Timestamp
	}
	for _, r := range c.Records {
		ev := r.Event
		switch {
		case ev.Kind == "ConversationStateUpdateEvent":
			su, ok := r.decoded()
			if !ok {
				continue
			}
			switch su.Key {
			case "execution_status":
				var s string
				if json.Unmarshal(su.Value, &s) == nil && s != "" {
					md.Status = s
				}
			case "stats":
				var st statsJSON
				if json.Unmarshal(su.Value, &st) == nil {
					md.Usage.max(st.sum())
				}
			}
		case md.Title == "" && ev.Source == "user" && (ev.Kind == "MessageEvent" || ev.Action == "message"):
			if t := firstLine(messageText(r)); t != "" {
				md.Title, md.TitleFrom = t, "first-user-message"
			}
		}
	}
}

// firstLine trims s to its first non-empty line, at most 200 runes.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > 200 {
				return string(r[:200])
			}
			return l
		}
	}
	return ""
}
