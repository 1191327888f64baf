// Types of the Go API (package app and the archive/index DTOs it returns). They
// mirror the Go structs' JSON tags; times are RFC 3339 strings.

export interface Tokens { input: number; output: number; reasoning: number; cache_read: number }

export type Health = 'ok' | 'recovered' | 'corrupt' | 'gone' | 'damaged';

export interface Session {
  id: string; agent: string; title: string; title_source?: string;
  cwd?: string; project: string; parent_session?: string; seed_length: number | null;
  origin?: string; delegation_depth: number; agent_preset?: string;
  created_at: string; updated_at: string; models: string[];
  records: number; events: number; last_seq: number; turns: number; messages: number; tool_calls: number;
  tokens: Tokens; health: Health; approval_policy?: string; sandbox_mode?: string; path?: string;
}

export interface Problem { kind: string; line: number; offset: number; seq?: number; message: string }

export interface SessionRef {
  id: string; title: string; origin?: string; delegation_depth: number; created_at: string; health: Health;
}
export interface Relations { parent_id?: string; parent: SessionRef | null; children: SessionRef[] }

export type Verdict = 'ok' | 'recovered' | 'corrupt' | 'unsupported' | 'failed';

export interface FileStatus {
  path: string; session_id: string; verdict: Verdict; error_kind?: string; error_line?: number;
  error_offset?: number; error_message?: string; warnings: number; records: number; events: number;
  size: number; compressed: boolean; gone: boolean; duplicate: boolean; first_seen: string; last_import: string;
}

export interface SessionDetail { session: Session; relations: Relations; files: FileStatus[]; problems: Problem[] }

export interface Message {
  session_id: string; seq: number; time: string; turn: number | null; step: number | null;
  role: 'user' | 'assistant' | 'tool'; kind: 'human' | 'injected' | 'assistant' | 'tool_result';
  source_kind?: string; plugin?: string; text: string; reasoning?: string; model?: string;
  surface: 'current' | 'shadowed'; shadowed_by?: number; interrupted?: boolean;
}

export interface ToolCall {
  session_id: string; call_id: string; name: string; arguments: string; turn: number | null; step: number | null;
  call_seq: number; call_time: string; result_seq: number | null; result_time: string | null;
  output: string | null; is_error: boolean; error_name?: string; error_code?: string;
}

export interface Approval {
  session_id: string; id: string; toolName: string; callId?: string; reason?: string; turn: number | null;
  asked_seq: number | null; asked_at: string | null; decided_seq: number | null; decided_at: string | null;
  outcome: string | null; policy?: string; sandbox_mode?: string; permission_preset?: string;
}

export interface Compaction {
  session_id: string; compactionId: string; kind: 'compaction' | 'prune'; turn: number | null;
  status: 'open' | 'ok' | 'failed'; started_at: string | null; ended_at: string | null;
  start_seq: number | null; summary_seq: number | null; replace_seq: number | null; end_seq: number | null;
  summary?: string; shadowed_start: number | null; shadowed_end: number | null; shadowedSeqs: number[];
  shadowed_tokens: number | null; provider?: string; model?: string; error: string | null;
}

export interface TodoItem { content: string; status: string }
export interface MarkerField { name: string; value: string }
export interface Marker { label: string; detail?: string; todos?: TodoItem[]; status?: string; fields?: MarkerField[] }

/** The latest event of one state type at or before the asked seq. */
export interface StateEntry { type: string; seq: number; time: number; marker: Marker }

/** A schedule as dsh's fold has it (archive/format.Schedule). */
export interface FoldedSchedule {
  id: string; kind: 'at' | 'after' | 'every'; prompt: string; afterSeconds?: number; everySeconds?: number;
  scheduledAt: string; createdSeq: number; createdAt: number; status: 'active' | 'deleted' | 'completed';
  endedSeq?: number; endedAt?: number; endReason?: string; dispatchCount: number;
}

/** A session's working state just after one event (api.sessionState). */
export interface SessionState { session_id: string; seq: number; entries: StateEntry[]; schedules: FoldedSchedule[] }

export type ItemKind = 'message' | 'tool' | 'approval' | 'compaction' | 'turn' | 'marker';

export interface TimelineItem {
  seq: number; type: string; kind: ItemKind; time: string; turn: number | null; step: number | null;
  surface: 'current' | 'shadowed' | 'log-only'; shadowed_by?: number;
  inherited?: boolean; // part of a fork's seed, inherited from the parent session
  message?: Message; tool?: ToolCall; approval?: Approval; compaction?: Compaction; marker?: Marker;
}

export interface TimelineQuery { after?: number | null; before?: number | null; around?: number | null; limit?: number }

export interface TimelinePage {
  session_id: string; items: TimelineItem[]; has_before: boolean; has_after: boolean; total: number;
}

/** exhaustive ranks and counts every match, however many (slower; see SearchResult.ranked_among). */
export interface SearchRequest { query: string; sort?: 'relevance' | 'recent'; limit?: number; cursor?: string; exhaustive?: boolean }

export interface Hit {
  id: string; session_id: string; seq: number; kind: string; role: string; tool: string; project: string;
  surface: string; time: string; is_error: boolean; score: number; fragments: string[];
}
export interface FacetCount { term: string; count: number }
export interface Facets { kind: FacetCount[]; tool: FacetCount[]; project: FacetCount[]; month: FacetCount[] }
/**
 * One page of a search. total and facets come with the first page only; total_exact is false when
 * they are estimates (a phrase over many matches). ranked_among, when set, is how many of the newest
 * matches the first page was ranked among (later pages go on to older ones); exhaustive ranks all.
 */
export interface SearchResult {
  total: number; total_exact: boolean; hits: Hit[]; facets: Facets; ranked_among?: number; next_cursor: string; took_ms: number;
  /** How the search differs from what was typed (text with no searchable words left out, fewer typos). */ notice?: string;
}

export interface Info {
  version: string; mode: 'desktop' | 'web'; data_dir: string; roots: string[]; sessions: number;
  demo: boolean; importing: boolean; self_test: boolean;
}

export interface Summary {
  files: number; ok: number; recovered: number; corrupt: number; unsupported: number; failed: number;
  changed: number; unchanged: number; events: number; bytes: number;
}

export interface ImportRun {
  started_at: string; finished_at: string | null; roots: string[]; summary: Summary | null;
  gone: string[]; error?: string;
}

/** Import settings (DATA/import.json). */
export interface ImportSettings { lenient_headers: boolean }

export interface ImportStatus { roots: string[]; running: boolean; last: ImportRun | null; files: FileStatus[] }

// Payloads of the live events (api.on).
export interface ImportProgress {
  file: string; file_index: number; files: number; done_bytes: number; total_bytes: number; phase: 'import' | 'index';
}

export interface EventMap {
  'import:progress': ImportProgress;
  'import:done': ImportRun;
  'archive:changed': { sessions: string[] };
  'schedule:fired': unknown;
}

// Scheduled prompts (app/schedules.go, archive/schedule_ops.go). state and next_fire
// are what the session's own fold says; the logbook_* members are what Logbook does.
export type LogbookScheduleState = 'scheduled' | 'overdue' | 'paused' | 'dismissed' | 'fired' | 'completed' | 'deleted';

export interface ScheduleFire {
  id: number; session_id: string; schedule_id: string; fired_at: string; target_at: string;
  trigger: 'scheduled' | 'catch-up' | 'manual'; action: string; outcome: 'ok' | 'failed' | 'skipped' | 'asked';
  error?: string; attempts: number; settles: boolean;
}

export interface ScheduleItem {
  session_id: string; id: string; kind: 'at' | 'after' | 'every'; prompt: string;
  after_seconds?: number; every_seconds?: number; status: 'active' | 'deleted' | 'completed';
  state: 'scheduled' | 'overdue' | 'deleted' | 'completed'; scheduled_at: string; next_fire: string | null;
  created_seq: number; created_at: string; dispatch_count: number; last_accepted_at?: string;
  cwd?: string; override?: 'paused' | 'dismissed'; snoozed_until?: string;
  logbook_state: LogbookScheduleState; logbook_next_fire: string | null; fire_count: number; last_fire?: ScheduleFire;
}

/** Payload of the schedule:fired event. */
export interface ScheduleFired extends ScheduleFire { kind: string; prompt: string; cwd?: string }

export type ScheduleAction = 'pause' | 'resume' | 'snooze' | 'fire' | 'skip' | 'dismiss';

export interface SchedulerConfig {
  action: 'notify' | 'command' | 'webhook'; command: string[] | null; webhook_url: string;
  timeout_seconds: number; retries: number; backoff_seconds: number; catch_up: 'fire' | 'ask' | 'skip';
  max_catch_up_hours: number;
}
