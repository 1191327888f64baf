// The map of a long run: the session's turns (api.sessionTurns) as the turn
// navigator lists them, which turn a seq falls in, J/K's next turn, and the
// overview's scale from seq to height and back. Pure functions.
import type { TurnSummary } from '../api/types';
import { duration } from './format';

/** The index of the turn holding seq: the last one starting at or before it; -1 before the first. */
export function turnIndexAt(turns: TurnSummary[], seq: number | null): number {
  if (seq === null || !turns.length) return -1;
  let lo = 0;
  let hi = turns.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (turns[mid].start_seq <= seq) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** J (dir 1) / K (dir -1) from the turn in view: the next turn, or the previous one; null past either end. */
export function stepTurn(turns: TurnSummary[], at: number, dir: 1 | -1): TurnSummary | null {
  const i = at + dir;
  if (at < 0 && dir === 1) return turns[0] ?? null;
  return i >= 0 && i < turns.length ? turns[i] : null;
}

/** How long a turn took, from its first to its last event ("" when unknown). */
export function turnDuration(t: TurnSummary): string {
  const ms = Date.parse(t.end) - Date.parse(t.start);
  return Number.isFinite(ms) && ms >= 0 ? duration(ms) : '';
}

/** What a turn's line says when its prompt is empty. */
export function turnLabel(t: TurnSummary): string {
  return t.prompt || '(no prompt)';
}

/** Where seq sits on the overview, 0 (top) to 1 (bottom), over the seqs first..last. */
export function seqFraction(seq: number, first: number, last: number): number {
  if (last <= first) return 0;
  return Math.max(0, Math.min(1, (seq - first) / (last - first)));
}

/** The seq at a fraction of the overview's height. */
export function seqAtFraction(f: number, first: number, last: number): number {
  const x = Math.max(0, Math.min(1, f));
  return Math.round(first + x * (last - first));
}
