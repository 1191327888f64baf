// The scale of a whole conversation when only a window of it is loaded: where an
// event's item would sit, in pixels, had everything been loaded, and the event at a
// pixel. Heights are estimated as items × a mean item height, each turn's items
// spread evenly over its events (api.sessionTurns gives the counts); the items
// outside every turn share the rest. Pure functions; Conversation.svelte sizes the
// unloaded room above and below its window with them.
import type { TurnSummary } from '../api/types';

/** A run of events [from, to) holding about `items` items, at pixel `top`. */
interface Segment {
  from: number;
  to: number;
  top: number;
  height: number;
}

export interface ScrollMap {
  segments: Segment[];
  /** The whole session's estimated height. */
  total: number;
}

/**
 * The map of a session of events 0..lastSeq with totalItems items, mean pixels per
 * item, from its turns (in order). Heights are scaled down together when they would
 * pass maxPx (browsers cap an element's height).
 */
export function scrollMap(turns: TurnSummary[], lastSeq: number, totalItems: number, mean: number, maxPx = 20_000_000): ScrollMap {
  const end = lastSeq + 1;
  const runs: { from: number; to: number; items: number }[] = [];
  let at = 0;
  let inTurns = 0;
  const gaps: { from: number; to: number }[] = [];
  for (const t of turns) {
    const from = Math.max(at, t.start_seq);
    const to = Math.min(end, Math.max(from, t.end_seq + 1));
    if (from > at) gaps.push({ from: at, to: from });
    if (to > from) {
      runs.push({ from, to, items: Math.max(1, t.items ?? 0) });
      inTurns += Math.max(1, t.items ?? 0);
    }
    at = Math.max(at, to);
  }
  if (at < end) gaps.push({ from: at, to: end });
  // The items outside turns, spread over the events outside them.
  const rest = Math.max(0, totalItems - inTurns);
  const gapEvents = gaps.reduce((a, g) => a + (g.to - g.from), 0);
  for (const g of gaps) runs.push({ ...g, items: gapEvents ? (rest * (g.to - g.from)) / gapEvents : 0 });
  runs.sort((a, b) => a.from - b.from);
  const all = runs.reduce((a, r) => a + r.items, 0) * mean;
  const scale = all > maxPx ? maxPx / all : 1;
  const segments: Segment[] = [];
  let top = 0;
  for (const r of runs) {
    const height = r.items * mean * scale;
    segments.push({ from: r.from, to: r.to, top, height });
    top += height;
  }
  return { segments, total: top };
}

function segmentOf(m: ScrollMap, seq: number): number {
  let lo = 0;
  let hi = m.segments.length - 1;
  let best = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (m.segments[mid].from <= seq) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** The pixel at which event seq's item would start. */
export function pxOf(m: ScrollMap, seq: number): number {
  if (!m.segments.length) return 0;
  const s = m.segments[segmentOf(m, seq)];
  const f = Math.min(1, Math.max(0, (seq - s.from) / Math.max(1, s.to - s.from)));
  return s.top + f * s.height;
}

/** The event whose item would sit at pixel y. */
export function seqAt(m: ScrollMap, y: number): number {
  const segs = m.segments;
  if (!segs.length) return 0;
  let lo = 0;
  let hi = segs.length - 1;
  let best = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (segs[mid].top <= y) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  const s = segs[best];
  const f = s.height > 0 ? Math.min(1, Math.max(0, (y - s.top) / s.height)) : 0;
  return Math.min(s.to - 1, s.from + Math.floor(f * (s.to - s.from)));
}
