// The conversation view's logic, kept out of the components so vitest can check it:
// merging timeline pages into one loaded window, which shadowed items a compaction's
// toggle reveals, the flat row model the virtual list renders (with turn and step
// boundaries), finding the item that holds a seq, reading tool calls, folding long
// output and telling whether the log ends mid-turn.
import type { Compaction, Marker, Problem, SessionDetail, TimelineItem, TimelinePage, TodoItem, ToolCall } from '../api/types';
import { stripAnsi } from './format';

// ---------------------------------------------------------------------------------
// Pages

/** The contiguous part of a session's timeline the view has loaded, oldest first. */
export interface Loaded {
  items: TimelineItem[];
  hasBefore: boolean;
  hasAfter: boolean;
  total: number;
}

export function emptyLoaded(): Loaded {
  return { items: [], hasBefore: false, hasAfter: false, total: 0 };
}

/**
 * An item's identity in the loaded window and the list: its seq, except that a
 * synthetic turn start (the archive's, before a prompt of a log that names no
 * turns) shares its prompt's seq and so is told apart.
 */
export function itemKey(it: TimelineItem): string {
  return (it.synthetic ? 't:' : 'i:') + it.seq;
}

function bySeq(items: Iterable<TimelineItem>): TimelineItem[] {
  const m = new Map<string, TimelineItem>();
  for (const it of items) m.set(itemKey(it), it);
  // A synthetic turn start comes before the prompt of its seq.
  return [...m.values()].sort((a, b) => a.seq - b.seq || Number(!!b.synthetic) - Number(!!a.synthetic));
}

/**
 * Adds a page to the loaded window. "replace" starts a new window (a jump); "before"
 * and "after" extend it at one end, keeping the other end's has_* flag. Items are
 * de-duplicated by seq and kept in seq order, so overlapping pages are harmless.
 */
export function mergePage(cur: Loaded, page: TimelinePage, mode: 'replace' | 'before' | 'after'): Loaded {
  const items = page.items ?? [];
  if (mode === 'replace' || !cur.items.length) {
    return { items: bySeq(items), hasBefore: page.has_before, hasAfter: page.has_after, total: page.total };
  }
  // A page that adds nothing ends that side, so a confused server cannot make the
  // view ask forever.
  if (mode === 'before') {
    const first = cur.items[0].seq;
    const added = items.some((it) => it.seq < first);
    return {
      items: bySeq([...items, ...cur.items]),
      hasBefore: added && page.has_before,
      hasAfter: cur.hasAfter,
      total: page.total,
    };
  }
  const last = cur.items[cur.items.length - 1].seq;
  const added = items.some((it) => it.seq > last);
  return {
    items: bySeq([...cur.items, ...items]),
    hasBefore: cur.hasBefore,
    hasAfter: added && page.has_after,
    total: page.total,
  };
}

/**
 * Bounds memory for very long sessions: when the window holds more than max items,
 * drops items from the end away from where the reader is going (keep = the end to
 * keep) and marks that side as having more to load again.
 */
export function trimLoaded(l: Loaded, max: number, keep: 'start' | 'end'): Loaded {
  if (l.items.length <= max) return l;
  if (keep === 'end') return { ...l, items: l.items.slice(l.items.length - max), hasBefore: true };
  return { ...l, items: l.items.slice(0, max), hasAfter: true };
}

// ---------------------------------------------------------------------------------
// Seqs an item covers

/** Every event seq an item stands for (a tool call holds its result, an approval its decision…). */
export function itemSeqs(it: TimelineItem): number[] {
  const s = [it.seq];
  const add = (n: number | null | undefined) => {
    if (n !== null && n !== undefined && !s.includes(n)) s.push(n);
  };
  if (it.tool) {
    add(it.tool.call_seq);
    add(it.tool.result_seq);
  }
  if (it.approval) {
    add(it.approval.asked_seq);
    add(it.approval.decided_seq);
  }
  if (it.compaction) for (const k of compactionSeqs(it.compaction)) add(k);
  if (it.message) add(it.message.seq);
  return s;
}

export function compactionSeqs(c: Compaction): number[] {
  return [c.start_seq, c.summary_seq, c.replace_seq, c.end_seq].filter((n): n is number => n !== null && n !== undefined);
}

/**
 * The index of the item that holds seq: the item at that seq, else one whose events
 * include it (a tool result, an approval's decision, a compaction's summary), else the
 * last item before it (an event with no item of its own, e.g. a streamed chunk). -1
 * when seq is before every loaded item.
 */
export function findItemIndex(items: TimelineItem[], seq: number): number {
  let lo = 0;
  let hi = items.length - 1;
  let before = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = items[mid].seq;
    // The item of seq, not the synthetic turn start before it.
    if (s === seq) return items[mid].synthetic && items[mid + 1]?.seq === seq ? mid + 1 : mid;
    if (s < seq) {
      before = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  // A later-paired event: scan back from the insertion point for an item that spans it.
  for (let i = before; i >= 0 && i >= before - 400; i--) if (itemSeqs(items[i]).includes(seq)) return i;
  return before;
}

// ---------------------------------------------------------------------------------
// Compactions and shadowed items

/** A loaded compaction item and what the index knows about it. */
export interface CompactionIndex {
  /** compaction items by each of their seqs (item seq, start, summary, replace, end). */
  byKey: Map<number, TimelineItem>;
  /** compaction items by each seq they list as shadowed. */
  byShadowed: Map<number, TimelineItem>;
  ranges: { start: number; end: number; item: TimelineItem }[];
}

export function indexCompactions(items: TimelineItem[]): CompactionIndex {
  const idx: CompactionIndex = { byKey: new Map(), byShadowed: new Map(), ranges: [] };
  for (const it of items) {
    const c = it.compaction;
    if (it.kind !== 'compaction' || !c) continue;
    idx.byKey.set(it.seq, it);
    for (const k of compactionSeqs(c)) idx.byKey.set(k, it);
    for (const s of c.shadowedSeqs ?? []) idx.byShadowed.set(s, it);
    if (c.shadowed_start != null && c.shadowed_end != null) {
      idx.ranges.push({ start: Math.min(c.shadowed_start, c.shadowed_end), end: Math.max(c.shadowed_start, c.shadowed_end), item: it });
    }
  }
  return idx;
}

/** The loaded compaction that replaced a shadowed item, if any. */
export function shadowOwner(it: TimelineItem, idx: CompactionIndex): TimelineItem | null {
  if (it.shadowed_by !== undefined && it.shadowed_by !== null) {
    const o = idx.byKey.get(it.shadowed_by);
    if (o) return o;
  }
  for (const s of itemSeqs(it)) {
    const o = idx.byShadowed.get(s);
    if (o) return o;
  }
  for (const r of idx.ranges) if (it.seq >= r.start && it.seq <= r.end) return r.item;
  return null;
}

/** The keys a compaction's toggle adds to the revealed set: every seq that names it. */
export function revealKeys(comp: TimelineItem): number[] {
  return comp.compaction ? [comp.seq, ...compactionSeqs(comp.compaction)] : [comp.seq];
}

export function isCompactionRevealed(comp: TimelineItem, revealed: ReadonlySet<number>): boolean {
  return revealKeys(comp).some((k) => revealed.has(k));
}

/** Whether a shadowed item is shown: its compaction's toggle (or its gap's) is on. */
export function isRevealed(it: TimelineItem, revealed: ReadonlySet<number>, idx: CompactionIndex): boolean {
  if (it.shadowed_by !== undefined && it.shadowed_by !== null && revealed.has(it.shadowed_by)) return true;
  const o = shadowOwner(it, idx);
  return o ? isCompactionRevealed(o, revealed) : false;
}

/** The loaded compaction (or prune) item with this compactionId (links such as ?reveal=ID name one). */
export function compactionById(items: TimelineItem[], id: string | null): TimelineItem | null {
  if (!id) return null;
  return items.find((it) => it.kind === 'compaction' && it.compaction?.compactionId === id) ?? null;
}

/** Toggles a compaction's originals: returns the new revealed set. */
export function toggleCompaction(comp: TimelineItem, revealed: ReadonlySet<number>): Set<number> {
  const next = new Set(revealed);
  const keys = revealKeys(comp);
  if (keys.some((k) => next.has(k))) for (const k of keys) next.delete(k);
  else for (const k of keys) next.add(k);
  return next;
}

/** How many messages a compaction replaced: its shadowed seqs, else the loaded items it owns. */
export function replacedCount(comp: TimelineItem, items: TimelineItem[], idx: CompactionIndex): number {
  const n = comp.compaction?.shadowedSeqs?.length ?? 0;
  if (n) return n;
  let k = 0;
  for (const it of items) if (it.surface === 'shadowed' && shadowOwner(it, idx) === comp) k++;
  return k;
}

// ---------------------------------------------------------------------------------
// Rows

export type Row =
  | {
      type: 'item';
      key: string;
      item: TimelineItem;
      index: number; // in Loaded.items
      shadowed: boolean; // shown because a compaction's toggle is on
      stepStart: boolean; // first row of a new (turn, step)
      inherited: boolean; // copied from the parent session (a fork's seeded prefix)
      forkPoint: boolean; // the first row of the session's own work after an inherited prefix
    }
  | {
      type: 'gap';
      key: string;
      count: number;
      firstSeq: number;
      lastSeq: number;
      owner: TimelineItem | null; // the compaction that replaced them, when loaded
      shadowedBy: number | null;
    };

/**
 * The rows the list renders: items in seq order, with shadowed items either shown
 * (their compaction revealed) or folded into one quiet "gap" row per run.
 */
export function buildRows(items: TimelineItem[], revealed: ReadonlySet<number>, idx = indexCompactions(items)): Row[] {
  const rows: Row[] = [];
  let lastTurn: number | null = null;
  let lastStep: number | null = null;
  let gap: Extract<Row, { type: 'gap' }> | null = null;
  let prevInherited = false;
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    const inherited = isInherited(it);
    const forkPoint = prevInherited && !inherited;
    prevInherited = inherited;
    const sh = it.surface === 'shadowed';
    if (sh && !isRevealed(it, revealed, idx)) {
      const owner = shadowOwner(it, idx);
      const by = it.shadowed_by ?? null;
      if (gap && gap.owner === owner && (owner || gap.shadowedBy === by)) {
        gap.count++;
        gap.lastSeq = it.seq;
      } else {
        gap = { type: 'gap', key: 'gap:' + it.seq, count: 1, firstSeq: it.seq, lastSeq: it.seq, owner, shadowedBy: by };
        rows.push(gap);
      }
      continue;
    }
    gap = null;
    let stepStart = false;
    if (it.kind !== 'turn') {
      if (it.step !== null && it.step !== undefined && (it.turn !== lastTurn || it.step !== lastStep)) stepStart = true;
      lastTurn = it.turn ?? null;
      lastStep = it.step ?? null;
    } else {
      lastTurn = it.turn ?? null;
      lastStep = null;
    }
    rows.push({ type: 'item', key: itemKey(it), item: it, index: i, shadowed: sh, stepStart, inherited, forkPoint });
  }
  return rows;
}

/** Whether an item was copied from the parent session (newer servers mark a fork's seeded prefix). */
export function isInherited(it: TimelineItem): boolean {
  return (it as TimelineItem & { inherited?: boolean }).inherited === true;
}

/**
 * The row showing the item of seq (the gap that hides it when it is hidden). With
 * head, a synthetic turn start of the same seq before it: the row a jump to the
 * start of a turn puts at the top.
 */
export function rowOfItem(rows: Row[], seq: number, head = false): number {
  let lo = 0;
  let hi = rows.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = rows[mid];
    const first = r.type === 'item' ? r.item.seq : r.firstSeq;
    if (first <= seq) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (head && best > 0 && isTurnHeadOf(rows[best - 1], rows[best])) best--;
  return best;
}

/** Whether row a is the synthetic turn start of row b's prompt (the same seq). */
export function isTurnHeadOf(a: Row | undefined, b: Row | undefined): boolean {
  return a?.type === 'item' && b?.type === 'item' && !!a.item.synthetic && a.item.seq === b.item.seq && a !== b;
}

export function isTurnStart(it: TimelineItem): boolean {
  return it.kind === 'turn' && (it.type === 'turn/start' || /start/.test(it.type));
}

/** Row index of the next (dir 1) or previous (dir -1) turn start from `from`. */
export function nextTurnRow(rows: Row[], from: number, dir: 1 | -1): number {
  for (let i = from + dir; i >= 0 && i < rows.length; i += dir) {
    const r = rows[i];
    if (r.type === 'item' && isTurnStart(r.item)) return i;
  }
  return dir === 1 ? rows.length - 1 : 0;
}

export interface TurnSpan {
  turn: number;
  start?: TimelineItem;
  end?: TimelineItem;
}

/** Turn starts and ends among the loaded items, by turn number. */
export function turnSpans(items: TimelineItem[]): Map<number, TurnSpan> {
  const m = new Map<number, TurnSpan>();
  for (const it of items) {
    if (it.kind !== 'turn' || it.turn == null) continue;
    let t = m.get(it.turn);
    if (!t) m.set(it.turn, (t = { turn: it.turn }));
    if (isTurnStart(it)) t.start = it;
    else t.end = it;
  }
  return m;
}

// ---------------------------------------------------------------------------------
// The end of the log

export interface Tail {
  /** The log stops inside a turn: a turn started and never ended. */
  openTurn: number | null;
  /** Tool calls at the end that never got a result. */
  pending: ToolCall[];
  /** Messages marked interrupted in the last turn. */
  interrupted: number;
  /** A last turn that ended with a status other than completed. */
  endStatus: string | null;
  endTurn: number | null;
}

/** What the end of the timeline says about how the log stopped (items must include the end). */
export function tailState(items: TimelineItem[]): Tail {
  const t: Tail = { openTurn: null, pending: [], interrupted: 0, endStatus: null, endTurn: null };
  let lastTurnIdx = -1;
  for (let i = items.length - 1; i >= 0; i--) {
    if (items[i].kind === 'turn') {
      lastTurnIdx = i;
      break;
    }
  }
  const last = lastTurnIdx >= 0 ? items[lastTurnIdx] : null;
  // A synthetic turn (a log that names no turns) starts at a prompt and never ends.
  if (last && isTurnStart(last) && !last.synthetic) t.openTurn = last.turn ?? null;
  if (last && !isTurnStart(last)) {
    const st = (last.marker?.status || '').toLowerCase();
    if (st && !['completed', 'complete', 'ok', 'done', 'success', 'end_turn', 'stop'].includes(st)) {
      t.endStatus = last.marker?.status ?? st;
      t.endTurn = last.turn ?? null;
    }
  }
  const from = t.openTurn !== null ? lastTurnIdx : lastTurnIdx + 1;
  for (let i = from; i < items.length; i++) {
    const it = items[i];
    if (it.tool && (it.tool.result_seq === null || it.tool.result_seq === undefined)) t.pending.push(it.tool);
    if (it.message?.interrupted) t.interrupted++;
  }
  return t;
}

export function tailProblem(t: Tail): string | null {
  const parts: string[] = [];
  if (t.openTurn !== null) parts.push(`turn ${t.openTurn} started but never ended`);
  if (t.endStatus) parts.push(`turn ${t.endTurn} ended “${t.endStatus}”`);
  if (t.pending.length === 1) parts.push(`the ${t.pending[0].name || 'tool'} call at seq ${t.pending[0].call_seq} never got a result`);
  else if (t.pending.length > 1) parts.push(`${t.pending.length} tool calls never got a result`);
  if (t.interrupted) parts.push(`${t.interrupted} message${t.interrupted === 1 ? ' was' : 's were'} interrupted`);
  if (!parts.length) return null;
  const s = parts.join('; ');
  return t.openTurn !== null || t.pending.length ? `The log ends mid-turn: ${s}.` : s[0].toUpperCase() + s.slice(1) + '.';
}

// ---------------------------------------------------------------------------------
// Tool calls

export type ToolKind = 'shell' | 'edit' | 'write' | 'read' | 'search' | 'todo' | 'generic';

export interface ToolView {
  kind: ToolKind;
  /** One line for the card's header: the command, the path, the pattern… */
  summary: string;
  command?: string;
  description?: string;
  path?: string;
  oldText?: string;
  newText?: string;
  content?: string;
  todos?: TodoItem[];
  /** The arguments pretty-printed when they are JSON, else as written. */
  pretty: string;
  /** The parsed JSON arguments (undefined when not JSON). */
  args: unknown;
}

const shellNames = /^(bash|sh|zsh|fish|shell|pwsh|powershell|cmd|exec|execute|run|terminal|run_command|run_terminal_cmd|execute_command|run_shell_command|local_shell|shell_command|container\.exec)$/i;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function prettyJson(raw: string): { text: string; value: unknown; ok: boolean } {
  if (!raw) return { text: '', value: undefined, ok: false };
  try {
    const v = JSON.parse(raw);
    return { text: typeof v === 'string' ? v : JSON.stringify(v, null, 2), value: v, ok: true };
  } catch {
    return { text: raw, value: undefined, ok: false };
  }
}

/** Reads a tool call's arguments into what its card shows. */
export function describeTool(name: string, rawArgs: string): ToolView {
  const p = prettyJson(rawArgs);
  const a = (p.value && typeof p.value === 'object' && !Array.isArray(p.value) ? p.value : {}) as Record<string, unknown>;
  const base = { pretty: p.text, args: p.value };
  const n = (name || '').toLowerCase();
  const path = str(a.file_path) ?? str(a.path) ?? str(a.filePath) ?? str(a.filename) ?? str(a.file);
  let command = str(a.command) ?? str(a.cmd) ?? str(a.script);
  if (!command && Array.isArray(a.command)) command = (a.command as unknown[]).map(String).join(' ');
  if (!command && Array.isArray(a.argv)) command = (a.argv as unknown[]).map(String).join(' ');

  if (shellNames.test(n) || (command !== undefined && !path)) {
    const description = str(a.description) ?? str(a.desc);
    return { ...base, kind: 'shell', command: command ?? p.text, description, summary: firstLine(command ?? p.text) };
  }
  if (Array.isArray(a.todos) && /todo/.test(n)) {
    const todos = (a.todos as unknown[])
      .filter((t): t is Record<string, unknown> => !!t && typeof t === 'object')
      .map((t) => ({ content: String(t.content ?? t.text ?? ''), status: String(t.status ?? '') }));
    const done = todos.filter((t) => /complete|done/.test(t.status)).length;
    return { ...base, kind: 'todo', todos, summary: `${done}/${todos.length} done` };
  }
  const oldText = str(a.old_string) ?? str(a.oldString) ?? str(a.old_str) ?? str(a.search);
  const newText = str(a.new_string) ?? str(a.newString) ?? str(a.new_str) ?? str(a.replace);
  if (oldText !== undefined || newText !== undefined || /^(edit|str_replace|replace|patch|apply_patch|multi_edit)$/.test(n)) {
    return { ...base, kind: 'edit', path, oldText, newText, summary: path ?? firstLine(p.text) };
  }
  const content = str(a.content) ?? str(a.contents) ?? str(a.text) ?? str(a.file_text);
  if (/^(write|write_file|create|create_file)$/.test(n) || (path && content !== undefined)) {
    return { ...base, kind: 'write', path, content, summary: path ?? firstLine(p.text) };
  }
  const pattern = str(a.pattern) ?? str(a.query) ?? str(a.regex) ?? str(a.glob);
  if (pattern !== undefined && /grep|glob|search|find|rg|ripgrep|web_search|websearch/.test(n)) {
    return { ...base, kind: 'search', path, summary: pattern + (path ? `  in ${path}` : '') };
  }
  if (path && /read|view|open|cat|ls|list/.test(n)) {
    const range = [a.offset ?? a.start_line ?? a.line, a.limit ?? a.end_line].filter((x) => x !== undefined);
    return { ...base, kind: 'read', path, summary: path + (range.length ? `  (${range.join(', ')})` : '') };
  }
  const first = Object.values(a).find((v) => typeof v === 'string') as string | undefined;
  return { ...base, kind: 'generic', path, summary: firstLine(path ?? first ?? (p.ok ? '' : p.text)) };
}

export function firstLine(s: string, max = 200): string {
  s = stripAnsi(s);
  const i = s.indexOf('\n');
  const line = (i < 0 ? s : s.slice(0, i)).trim();
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
}

// ---------------------------------------------------------------------------------
// Long text

export function countLines(s: string): number {
  if (!s) return 0;
  let n = 1;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  if (s.endsWith('\n')) n--;
  return n;
}

export interface Fold {
  /** What to show folded. */
  text: string;
  /** Whether anything was hidden. */
  folded: boolean;
  totalLines: number;
  hiddenLines: number;
}

/**
 * Folds long text to its first maxLines lines (and at most maxChars characters, for
 * output that is one huge line); short text is returned whole. A fold hides at least
 * 3 lines, so "show all" never reveals just one more.
 */
export function foldText(text: string, maxLines = 14, maxChars = 4000): Fold {
  const totalLines = countLines(text);
  if (totalLines <= maxLines + 3 && text.length <= maxChars + 200) return { text, folded: false, totalLines, hiddenLines: 0 };
  let end = 0;
  let lines = 0;
  while (lines < maxLines) {
    const i = text.indexOf('\n', end);
    if (i < 0) {
      end = text.length;
      lines++;
      break;
    }
    end = i + 1;
    lines++;
  }
  let shown = text.slice(0, end).replace(/\n$/, '');
  if (shown.length > maxChars) shown = shown.slice(0, maxChars) + '…';
  const shownLines = countLines(shown);
  return { text: shown, folded: true, totalLines, hiddenLines: Math.max(0, totalLines - shownLines) };
}

/** How many characters a fold of maxLines lines shows at most: one huge line folds about as short as maxLines wrapped lines. */
export function foldChars(maxLines: number): number {
  return Math.max(600, maxLines * 160);
}

/** The label of a fold's toggle: lines when lines are hidden, characters when one long line was cut. */
export function foldToggleLabel(f: Fold, chars: number, open: boolean): string {
  if (open) return 'Show less';
  if (f.hiddenLines > 0) return `Show all ${f.totalLines.toLocaleString()} lines`;
  return `Show all ${chars.toLocaleString()} characters`;
}

/**
 * Whether unfolded text is long enough to scroll inside its own box. Without one a
 * 50,000-line output makes a single card hundreds of thousands of pixels tall, and
 * its "Show less" ends up out of reach at the far bottom.
 */
export function needsScrollBox(text: string, totalLines: number): boolean {
  return totalLines > 60 || text.length > 12_000;
}

// ---------------------------------------------------------------------------------
// Virtual list height estimates (px), before an item is measured.

export function estimateRowHeight(r: Row): number {
  if (r.type === 'gap') return 34;
  const it = r.item;
  const extra = r.stepStart ? 6 : 0;
  switch (it.kind) {
    case 'turn':
      return isTurnStart(it) ? 52 : 30;
    case 'marker':
      return it.marker?.todos?.length ? 34 + 21 * it.marker.todos.length : 22;
    case 'approval':
      return 64;
    case 'compaction':
      return 180;
    case 'tool': {
      const out = it.tool?.output ?? '';
      const lines = Math.min(countLines(out), 17);
      return 96 + lines * 18 + extra;
    }
    case 'message': {
      const m = it.message;
      if (!m) return 60;
      if (m.kind === 'injected') return 40;
      const len = m.text?.length ?? 0;
      const nl = countLines(m.text ?? '');
      return 48 + Math.min(4000, Math.ceil(len / 95) * 22 + nl * 6) + (m.reasoning ? 32 : 0) + extra;
    }
  }
  return 60;
}

// ---------------------------------------------------------------------------------
// Problems shown at the top (and the end) of a conversation

export interface ProblemLine {
  tone: 'warn' | 'err';
  /** verdict: the import verdict; warning: one stored import warning; tail: how the log ends. */
  kind: 'verdict' | 'warning' | 'tail';
  text: string;
  /** The importer's own wording, when the line restates it in plainer words. */
  detail?: string;
  /** On the "…and N more" line: N, the warnings it stands for. */
  more?: number;
}

/** How many problems the lines stand for (the "…and N more" line counts N). */
export function problemCount(lines: ProblemLine[]): number {
  return lines.reduce((n, l) => n + (l.more ?? 1), 0);
}

/** The distinct kinds of import warnings among the lines, in order, e.g. "unpaired-approval, seq-gap". */
export function warningKinds(lines: ProblemLine[]): string[] {
  const kinds: string[] = [];
  for (const l of lines) {
    if (l.kind !== 'warning' || l.more) continue;
    const k = l.text.slice(0, Math.max(0, l.text.indexOf(':')));
    if (k && !kinds.includes(k)) kinds.push(k);
  }
  return kinds;
}

/**
 * The problems to state up front: the import verdict (corrupt, recovered, gone
 * upstream) with the files' own messages, the stored import warnings, and how the log
 * ends when it stops mid-turn. maxWarnings caps the list of per-line warnings.
 */
export function sessionProblems(
  d: Pick<SessionDetail, 'session' | 'files' | 'problems'>,
  tail: string | null,
  maxWarnings = 4,
): ProblemLine[] {
  const out: ProblemLine[] = [];
  const files = d.files ?? [];
  const fileMsg = files.map((f) => f.error_message).filter((m): m is string => !!m);
  const problems = d.problems ?? [];
  const where = (p: Problem) => (p.line ? `line ${p.line}: ` : '');
  const h = d.session.health;
  const said = new Set<string>();
  if (h === 'corrupt') {
    const why = fileMsg[0] ?? (problems[0] ? where(problems[0]) + problems[0].message : '');
    if (why) said.add(fileMsg[0] ?? problems[0].message);
    out.push({ tone: 'err', kind: 'verdict', text: `This log is corrupt${why ? `: ${why}` : ''}. What could be read before the damage is shown.` });
  } else if (h === 'recovered') {
    const why = fileMsg[0] ?? (problems[0] ? where(problems[0]) + problems[0].message : '');
    if (why) said.add(fileMsg[0] ?? problems[0].message);
    out.push({ tone: 'warn', kind: 'verdict', text: `This log was recovered${why ? `: ${why}` : ''}. Its damaged tail was left out; everything before it is intact.` });
  } else if (h === 'gone') {
    out.push({ tone: 'warn', kind: 'verdict', text: 'The original log file is gone upstream; this archived copy is all that is left.' });
  } else if (h === 'damaged') {
    const p = problems.find((x) => x.kind === 'damaged-upstream');
    if (p) said.add(p.message);
    out.push({ tone: 'err', kind: 'verdict', text: `The log file was damaged upstream after it was archived${p ? `: ${p.message}` : ''}. This is the last good version, kept whole.` });
  }
  // The importer's interrupted-tail warning says what the tail line says: keep it as its detail.
  const tailWarn = tail ? problems.find((p) => p.kind === 'interrupted-tail' && !said.has(p.message)) : undefined;
  const rest = problems.filter((p) => !said.has(p.message) && p !== tailWarn);
  for (const p of rest.slice(0, maxWarnings)) out.push({ tone: 'warn', kind: 'warning', text: `${p.kind}: ${where(p)}${p.message}` });
  if (rest.length > maxWarnings) {
    const more = rest.length - maxWarnings;
    out.push({ tone: 'warn', kind: 'warning', text: `…and ${more} more import warning${more === 1 ? '' : 's'}.`, more });
  }
  if (tail) out.push({ tone: 'warn', kind: 'tail', text: tail, ...(tailWarn ? { detail: tailWarn.message } : {}) });
  return out;
}

/** A marker's texts without terminal escapes, for display. */
export function cleanMarker(m: Marker): Marker {
  return {
    ...m,
    label: stripAnsi(m.label),
    ...(m.detail != null ? { detail: stripAnsi(m.detail) } : {}),
    ...(m.todos ? { todos: m.todos.map((t) => ({ ...t, content: stripAnsi(t.content) })) } : {}),
    ...(m.fields ? { fields: m.fields.map((f) => ({ ...f, value: stripAnsi(f.value) })) } : {}),
  };
}

/** The checkbox of a todo item by its status, as written by the agent. */
export function todoBox(status: string): '☑' | '◐' | '☐' {
  const s = (status || '').toLowerCase();
  if (/complete|done|finished/.test(s)) return '☑';
  if (/progress|active|doing/.test(s)) return '◐';
  return '☐';
}
