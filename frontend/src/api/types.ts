// Types of the Go API. The data types come from the generated bindings
// (wailsjs/go/models.ts, written by `make bindings` from the Go structs): a Go field
// renamed or re-typed changes them, and `npm run check` then fails wherever the UI
// still uses the old shape. What is written by hand here has no Go type to come from:
// the payloads of live events (which bound methods do not return), and the closed sets
// of values that Go keeps as plain strings (health, verdicts, schedule actions).
import type { apikey, app, archive, follow, format, index, redact } from '../../wailsjs/go/models';

// The generated models are classes (createFrom, convertValues), but the answers are
// plain JSON objects: Wire<T> is T's data without the methods. Go's time.Time is `any`
// there ("Go type: time"); on the wire it is RFC 3339 text. A Go pointer field is
// optional in the generated class, and null on the wire when the field has no
// omitempty.
type IsAny<T> = 0 extends 1 & T ? true : false;
type Method = (...args: never[]) => unknown;
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];
type Fields<T> = { [K in keyof T as T[K] extends Method ? never : K]: T[K] };
type WireObject<T> = { [K in Exclude<keyof T, OptionalKeys<T>>]: Wire<T[K]> } & {
  [K in OptionalKeys<T>]?: Wire<Exclude<T[K], undefined>> | null;
};
export type Wire<T> =
  IsAny<T> extends true ? string
  : T extends readonly (infer E)[] ? Wire<E>[]
  : T extends object ? Flat<WireObject<Fields<T>>>
  : T;
type Flat<T> = { [K in keyof T]: T[K] };

// What the bound methods return (app.App in Go; wailsjs/go/app/App.d.ts).
export type Info = Wire<app.Info>;
export type Session = Wire<archive.Session>;
/** A session's sync provenance: the machine it came from, its diverged versions. */
export type SessionSync = Wire<archive.SessionSync>;
export type Tokens = Wire<archive.Tokens>;
export type SessionDetail = Wire<app.SessionDetail>;
export type SessionRef = Wire<archive.SessionRef>;
export type Relations = Wire<archive.Relations>;
export type FileStatus = Wire<archive.FileStatus>;
export type Problem = Wire<format.Problem>;
export type TimelinePage = Wire<archive.TimelinePage>;
export type TimelineItem = Wire<archive.TimelineItem>;
export type Message = Wire<archive.Message>;
export type ToolCall = Wire<archive.ToolCall>;
/** One change a tool call made to a file (write, replace, insert): the Files-changed panel's input. */
export type FileEdit = Wire<archive.FileEdit>;
/** Token usage of one group (day, project, turn) for one model. */
export type UsageRow = Wire<archive.UsageRow>;
export type UsageReport = Wire<archive.UsageReport>;
export type UsageFilter = Partial<Wire<archive.UsageFilter>>;
/** What a sessions-list row says happened: last prompt, files changed, tool errors. */
export type SessionGist = Wire<archive.SessionGist>;
/** The price table (USD per million tokens) usage costs are estimated from. */
export type Prices = Wire<app.Prices>;
export type ModelPrice = Wire<app.ModelPrice>;
export type Approval = Wire<archive.Approval>;
export type Compaction = Wire<archive.Compaction>;
export type Marker = Wire<format.Marker>;
export type MarkerField = Wire<format.MarkerField>;
export type TodoItem = Wire<format.TodoItem>;
/** A session's working state just after one event (api.sessionState). */
export type SessionState = Wire<archive.SessionState>;
/** The latest event of one state type at or before the asked seq. */
export type StateEntry = Wire<archive.StateEntry>;
/** One turn of a session for the turn navigator and the overview (api.sessionTurns). */
export type TurnSummary = Wire<archive.TurnSummary>;
/** A schedule as the format's fold has it (archive/format.Schedule). */
export type FoldedSchedule = Wire<format.Schedule>;
/**
 * One page of a search. total and facets come with the first page only; total_exact is false when
 * they are estimates (a phrase over many matches). ranked_among, when set, is how many of the newest
 * matches the first page was ranked among (later pages go on to older ones); exhaustive ranks all.
 * notice says how the search differs from what was typed.
 */
export type SearchResult = Wire<index.Result>;
/** How the Export dialog exports a session: md, html or jsonl; redacted or not. */
export type ExportOptions = Wire<app.ExportOptions>;
/** A finished export: its one-time download URL (browser) or where it was saved (desktop). */
export type ExportFile = Wire<app.ExportFile>;
/** Every session a search finds, resolved on the server for a bundle of them. */
export type ExportSelection = Wire<app.ExportSelection>;
/** What redaction found in an export: masked previews, never the secrets. */
export type RedactReport = Wire<redact.Report>;
export type RedactFinding = Wire<redact.Finding>;
/** Which findings to redact: per finding over per category over "all". */
export type RedactDecisions = Wire<redact.Decisions>;
export type Hit = Wire<index.Hit>;
export type Facets = Wire<index.Facets>;
export type FacetCount = Wire<index.FacetCount>;
export type ImportStatus = Wire<app.ImportStatus>;
export type ImportRun = Wire<app.ImportRun>;
export type Summary = Wire<archive.Summary>;
/** Import settings (DATA/import.json): lenient headers, and the folders the person added. */
export type ImportSettings = Wire<app.ImportSettings>;
/** Live follow: each import root's mode (watching, polling with the reason, missing) and the files being written. */
export type FollowStatus = Wire<app.FollowStatus>;
export type FollowRoot = Wire<follow.Status>;
/** A schedule as the Schedules view lists it; demo marks the demo archive's (shown, never fired). */
export type ScheduleItem = Wire<app.ScheduleRow>;
export type ScheduleFire = Wire<archive.ScheduleFire>;
export type SchedulerConfig = Wire<app.SchedulerConfig>;
/** Sync as the Settings view shows it (app/sync.go). */
export type SyncStatus = Wire<app.SyncStatus>;
export type SyncSettings = Wire<app.SyncSettings>;
/** An API key as listed: name, fingerprint, created, last used; never the key. */
export type APIKeyInfo = Wire<apikey.Info>;
/** A key just made: the only answer that carries the key itself. */
export type NewAPIKey = Wire<apikey.NewKey>;
/** Whether the window accepts the OpenHands webhook, where, and what this process does now. */
export type WebhookStatus = Wire<app.WebhookStatus>;
export type WebhookSettings = Wire<app.WebhookSettings>;

// What they take: Go reads a missing field as its zero value.
export type TimelineQuery = Partial<Wire<archive.TimelineQuery>>;
/** exhaustive ranks and counts every match, however many (slower; see SearchResult.ranked_among). */
export type SearchRequest = Partial<Wire<app.SearchRequest>>;

// Closed sets of values that Go keeps as strings (the UI's filters and actions).
export type Health = 'ok' | 'recovered' | 'corrupt' | 'gone' | 'damaged';
export type Verdict = 'ok' | 'recovered' | 'corrupt' | 'unsupported' | 'failed';
export type ScheduleAction = 'pause' | 'resume' | 'snooze' | 'fire' | 'skip' | 'dismiss';

// Payloads of the live events (api.on): app/events.go and app/schedules.go publish
// them; no bound method returns them, so the bindings do not describe them.
export interface ImportProgress {
  file: string; file_index: number; files: number; done_bytes: number; total_bytes: number; phase: 'import' | 'index';
}

/** Payload of the schedule:fired event. */
export interface ScheduleFired extends ScheduleFire { kind: string; prompt: string; cwd?: string }

export interface EventMap {
  'import:progress': ImportProgress;
  'import:done': ImportRun;
  'archive:changed': { sessions: string[] };
  'schedule:fired': unknown;
  'follow:status': FollowStatus;
  'sync:progress': { line: string };
  'sync:done': SyncStatus;
}
