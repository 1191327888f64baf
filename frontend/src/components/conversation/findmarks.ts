// Paints the find's marks into the rendered conversation with the CSS Custom
// Highlight API: ranges over the page's text, no element added, so the marks never
// fight Svelte over its text nodes and survive nothing they should not (rows the
// virtual list re-renders are painted again). Every occurrence of the terms in the
// rows on screen is marked; the current hit's word and its line are marked apart.
// Where the API is missing (older WebKit), nothing is marked and the jump still
// lands on the line.
import { lineSpan, termRanges } from '../../lib/find';

/** The names of the highlights; the styles are in styles/ (::highlight(…)). */
export const MARK_ALL = 'logbook-find';
export const MARK_CURRENT = 'logbook-find-current';
export const MARK_LINE = 'logbook-find-line';

/** The text under an element as one string, with the text node each offset comes from. */
export interface TextIndex {
  text: string;
  nodes: Text[];
  starts: number[];
}

export function textIndex(root: Node): TextIndex {
  const nodes: Text[] = [];
  const starts: number[] = [];
  let text = '';
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const t = n as Text;
    nodes.push(t);
    starts.push(text.length);
    text += t.data;
  }
  return { text, nodes, starts };
}

function point(ix: TextIndex, offset: number, end: boolean): [Text, number] | null {
  if (!ix.nodes.length) return null;
  // The last node starting at or before offset (for an end, strictly before).
  let lo = 0;
  let hi = ix.nodes.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (end ? ix.starts[mid] < offset : ix.starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  const n = ix.nodes[lo];
  return [n, Math.max(0, Math.min(n.data.length, offset - ix.starts[lo]))];
}

/** A DOM range over text offsets [start, end) of the index. */
export function rangeOf(ix: TextIndex, start: number, end: number): Range | null {
  const a = point(ix, start, false);
  const b = point(ix, end, true);
  if (!a || !b) return null;
  const r = document.createRange();
  r.setStart(a[0], a[1]);
  r.setEnd(b[0], b[1]);
  return r;
}

/** Whether the page can paint highlights. */
export function canMark(): boolean {
  return typeof CSS !== 'undefined' && 'highlights' in CSS && typeof Highlight !== 'undefined';
}

/** The current hit: which item, which part of it, and the text span of its word there. */
export interface Current {
  seq: number;
  scope: string | null;
  start: number;
  end: number;
}

/** The element showing the current hit's block, inside the item at seq. */
export function scopeElement(root: ParentNode, seq: number, scope: string | null): Element | null {
  const item = root.querySelector(`[data-testid="item"][data-seq="${seq}"]`);
  if (!item) return null;
  return (scope && item.querySelector(scope)) || item;
}

// Blocks longer than this are marked only when they hold the current hit: a
// 50,000-line output is searched once, when it is opened for its hit.
const MAX_SCAN = 400_000;

/**
 * Marks every occurrence of the pattern in the rendered items under root, and the
 * current hit's word and line. Returns how many words were marked.
 */
export function paint(root: ParentNode, re: RegExp | null, cur: Current | null): number {
  if (!canMark()) return 0;
  const all: Range[] = [];
  const items = root.querySelectorAll('[data-testid="item"]');
  for (const el of items) {
    const isCur = cur !== null && el.getAttribute('data-seq') === String(cur.seq);
    const ix = textIndex(el);
    if (ix.text.length > MAX_SCAN && !isCur) continue;
    for (const s of termRanges(ix.text, re)) {
      const r = rangeOf(ix, s.start, s.end);
      if (r) all.push(r);
    }
  }
  CSS.highlights.set(MARK_ALL, new Highlight(...all));
  const here: Range[] = [];
  const line: Range[] = [];
  const scope = cur ? scopeElement(root, cur.seq, cur.scope) : null;
  if (cur && scope) {
    const ix = textIndex(scope);
    const r = rangeOf(ix, cur.start, cur.end);
    if (r) here.push(r);
    const ls = lineSpan(ix.text, cur.start);
    const lr = rangeOf(ix, ls.start, ls.end);
    if (lr) line.push(lr);
  }
  CSS.highlights.set(MARK_CURRENT, new Highlight(...here));
  CSS.highlights.set(MARK_LINE, new Highlight(...line));
  return all.length;
}

/** Removes every mark. */
export function unpaint() {
  if (!canMark()) return;
  CSS.highlights.delete(MARK_ALL);
  CSS.highlights.delete(MARK_CURRENT);
  CSS.highlights.delete(MARK_LINE);
}

/**
 * Brings the current hit's word into view inside its own scrolling box (a long
 * output unfolded scrolls in place) and returns how far the conversation must
 * scroll for the word to sit at a third of its height (0 when it is there).
 */
export function centreInBox(scope: Element, cur: Current, viewport: Element): number {
  const ix = textIndex(scope);
  const r = rangeOf(ix, cur.start, cur.end);
  if (!r) return 0;
  let box = r.startContainer.parentElement;
  while (box && box !== scope && !(box.scrollHeight > box.clientHeight + 2 && getComputedStyle(box).overflowY !== 'visible')) {
    box = box.parentElement;
  }
  if (box && box !== scope && box.scrollHeight > box.clientHeight + 2) {
    const br = box.getBoundingClientRect();
    const rr = r.getBoundingClientRect();
    box.scrollTop += rr.top - br.top - box.clientHeight / 2;
  }
  const rr = r.getBoundingClientRect();
  const vr = viewport.getBoundingClientRect();
  return rr.top - (vr.top + vr.height / 3);
}
