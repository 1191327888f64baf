// Usage: pricing token counts from the editable price table, and the dashboard's
// series (per day, per project, per model) built from the archive's usage rows.
import type { ModelPrice, Tokens, UsageRow } from '../api/types';
import { compact } from './format';

/** The price row a model is billed at: the longest Match its name contains (case-insensitive). */
export function priceFor(model: string, prices: ModelPrice[]): ModelPrice | null {
  const m = model.toLowerCase();
  let best: ModelPrice | null = null;
  for (const p of prices) {
    const k = p.match.trim().toLowerCase();
    if (k && m.includes(k) && (!best || k.length > best.match.trim().length)) best = p;
  }
  return best;
}

/**
 * The estimated cost in dollars of tokens at a price (per million tokens): input,
 * cache reads and output each at their own rate. Reasoning tokens are not added again:
 * providers count them inside output.
 */
export function costOf(t: Tokens, p: ModelPrice | null): number {
  if (!p) return 0;
  return (t.input * p.input + t.cache_read * p.cache_read + t.output * p.output) / 1e6;
}

export function addTokens(a: Tokens, b: Tokens): Tokens {
  return { input: a.input + b.input, output: a.output + b.output, reasoning: a.reasoning + b.reasoning, cache_read: a.cache_read + b.cache_read };
}

export const zeroTokens = (): Tokens => ({ input: 0, output: 0, reasoning: 0, cache_read: 0 });

export function totalTokens(t: Tokens): number {
  return t.input + t.output + t.cache_read;
}

/** One group (a day, a project, a turn) with its usage summed over models, and its cost. */
export interface UsageGroup {
  key: string;
  tokens: Tokens;
  cost: number;
  /** Models used that have no price row (their cost counts as 0). */
  unpriced: string[];
}

/** Sums per-model rows into groups by key (in first-seen order), pricing each model. */
export function groupUsage(rows: UsageRow[], prices: ModelPrice[]): UsageGroup[] {
  const out = new Map<string, UsageGroup>();
  for (const r of rows) {
    let g = out.get(r.key);
    if (!g) out.set(r.key, (g = { key: r.key, tokens: zeroTokens(), cost: 0, unpriced: [] }));
    g.tokens = addTokens(g.tokens, r.tokens);
    const p = priceFor(r.model, prices);
    if (p) g.cost += costOf(r.tokens, p);
    else if (r.model && !g.unpriced.includes(r.model)) g.unpriced.push(r.model);
  }
  return [...out.values()];
}

/** Per model (across every key): the dashboard's model table. */
export function byModel(rows: UsageRow[], prices: ModelPrice[]): UsageGroup[] {
  return groupUsage(rows.map((r) => ({ ...r, key: r.model || '(unnamed)' })), prices).sort((a, b) => b.cost - a.cost || totalTokens(b.tokens) - totalTokens(a.tokens));
}

/** The longest span of days fillDays fills (about ten years); a longer span is drawn sparse. */
export const MAX_FILL_DAYS = 3700;

/**
 * Fills the days between the first and last with zero groups, so a chart's x axis is
 * time. A span longer than MAX_FILL_DAYS is returned as it is (only the days with
 * usage, none dropped), and sparse says so for the view to tell the reader.
 */
export function fillDays(days: UsageGroup[]): UsageGroup[] & { sparse?: boolean } {
  if (days.length < 2) return days;
  const start = Date.parse(days[0].key + 'T00:00:00Z');
  const end = Date.parse(days[days.length - 1].key + 'T00:00:00Z');
  if ((end - start) / 86_400_000 + 1 > MAX_FILL_DAYS) return Object.assign([...days], { sparse: true });
  const byKey = new Map(days.map((d) => [d.key, d]));
  const out: UsageGroup[] = [];
  for (let t = start; t <= end; t += 86_400_000) {
    const key = new Date(t).toISOString().slice(0, 10);
    out.push(byKey.get(key) ?? { key, tokens: zeroTokens(), cost: 0, unpriced: [] });
  }
  return out;
}

/** Dollars for a person: cents below $1000, whole dollars with separators from there. */
export function dollars(n: number): string {
  if (n === 0) return '$0';
  if (n < 0.01) return '<$0.01';
  if (n < 1000) return '$' + n.toFixed(2);
  return '$' + Math.round(n).toLocaleString('en-US');
}

/** A share as a percentage with one decimal ("—" when there is nothing to divide). */
export function percent(part: number, whole: number): string {
  return whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : '—';
}

/** A session's usage per turn (SessionUsage rows, keyed by turn number), every model summed. */
export function turnTokens(rows: UsageRow[]): Map<number, Tokens> {
  const out = new Map<number, Tokens>();
  for (const r of rows) {
    if (r.key === '') continue; // usage outside every turn
    const n = Number(r.key);
    const t = out.get(n) ?? zeroTokens();
    out.set(n, {
      input: t.input + r.tokens.input,
      output: t.output + r.tokens.output,
      reasoning: t.reasoning + r.tokens.reasoning,
      cache_read: t.cache_read + r.tokens.cache_read,
    });
  }
  return out;
}

/** A usage in a few words: "12k in · 3.4k out · 900 reasoning · 40k cache" (zero parts left out, but input and output). */
export function tokensShort(t: Tokens): string {
  return [
    `${compact(t.input)} in`,
    `${compact(t.output)} out`,
    t.reasoning ? `${compact(t.reasoning)} reasoning` : '',
    t.cache_read ? `${compact(t.cache_read)} cache` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}
