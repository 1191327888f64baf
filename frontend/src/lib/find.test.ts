import { describe, expect, it } from 'vitest';
import type { Hit } from '../api/types';
import {
  counterText, foldKeysFor, fragmentParts, hitIndex, lineOf, lineSpan, locate, markedTerms, orderHits, queryWords, sessionQuery,
  stepHit, termPattern, termRanges,
} from './find';

const hit = (seq: number, kind = 'tool_result', fragments: string[] = []): Hit =>
  ({ id: `${seq}/${kind}`, session_id: 's', seq, kind, role: '', tool: '', project: '', agent: 'dsh', surface: 'current',
    time: '', is_error: false, score: 1, fragments }) as Hit;

describe('the in-session query', () => {
  it('narrows the query to the session, grouping a top-level OR first', () => {
    expect(sessionQuery('timeout', 'session-1')).toBe('timeout session:session-1');
    expect(sessionQuery('a OR b', 'session-1')).toBe('(a OR b) session:session-1');
  });
});

describe('hits in reading order', () => {
  const hits = orderHits([hit(40), hit(-1, 'title'), hit(7, 'assistant'), hit(7, 'reasoning'), hit(19)]);
  it('sorts by seq, reasoning before the answer of one event, and leaves titles out', () => {
    expect(hits.map((h) => `${h.seq}${h.kind[0]}`)).toEqual(['7r', '7a', '19t', '40t']);
  });
  it('finds a hit by seq and kind', () => {
    expect(hitIndex(hits, 7, 'assistant')).toBe(1);
    expect(hitIndex(hits, 7, null)).toBe(0);
    expect(hitIndex(hits, 8, null)).toBe(-1);
  });
  it('steps with wrap-around, or from the reading position', () => {
    expect(stepHit(hits, 3, 1, null)).toBe(0);
    expect(stepHit(hits, 0, -1, null)).toBe(3);
    expect(stepHit(hits, -1, 1, 10)).toBe(2);
    expect(stepHit(hits, -1, -1, 10)).toBe(1);
    expect(stepHit(hits, -1, 1, 99)).toBe(0);
    expect(stepHit([], -1, 1, 0)).toBe(-1);
  });
  it('counts the way the Search view does', () => {
    expect(counterText(2, 53, 53, true)).toBe('3 of 53');
    expect(counterText(-1, 53, 53, true)).toBe('53 matches');
    expect(counterText(0, 0, 0, true)).toBe('No matches');
    expect(counterText(4, 500, 900, false)).toBe('5 of 500 loaded (about 900)');
  });
});

describe('marking', () => {
  it('reads a fragment into plain text and marked spans', () => {
    const p = fragmentParts('a &lt;b&gt; <mark>refused</mark> c');
    expect(p.plain).toBe('a <b> refused c');
    expect(p.plain.slice(p.marks[0].start, p.marks[0].end)).toBe('refused');
  });
  it('collects the marked words, longest first, case aside', () => {
    expect(markedTerms(['<mark>Refused</mark> x <mark>port</mark>', '<mark>refused</mark>'])).toEqual(['Refused', 'port']);
  });
  it('takes the text words of a query, not its filters or exclusions', () => {
    expect(queryWords('"connection refused" tool:bash -retry port*')).toEqual(['connection', 'refused', 'port']);
  });
  it('finds every term, case aside', () => {
    const re = termPattern(['port', 'refused']);
    expect(termRanges('Port 80 REFUSED; port 81', re)).toEqual([{ start: 0, end: 4 }, { start: 8, end: 15 }, { start: 17, end: 21 }]);
    expect(termRanges('x', null)).toEqual([]);
  });
});

describe('locating a hit in its block', () => {
  const lines = Array.from({ length: 439 }, (_, i) => `line ${i + 1}: ok`);
  lines[353] = 'line 354: dial tcp 127.0.0.1:5432: connect: connection refused';
  const text = lines.join('\n');
  it('finds the fragment at its line, not an earlier occurrence of the word', () => {
    const t = text.replace('line 3: ok', 'line 3: refused elsewhere');
    const frag = '127.0.0.1:5432: connect: connection <mark>refused</mark>\nline 355: ok';
    const at = locate(t, [frag])!;
    expect(t.slice(at.start, at.end)).toBe('refused');
    expect(lineOf(t, at.start)).toBe(354);
    const ls = lineSpan(t, at.start);
    expect(t.slice(ls.start, ls.end)).toBe(lines[353]);
  });
  it('falls back to a narrower window when the shown text differs (Markdown)', () => {
    const shown = 'We **fixed** the connection refused error';
    const at = locate(shown, ['We fixed the connection <mark>refused</mark> error'])!;
    expect(at).toEqual({ start: shown.indexOf('refused'), end: shown.indexOf('refused') + 7 });
  });
  it('falls back to the first marked word, and to null', () => {
    expect(locate('nothing here but Refused', ['totally <mark>refused</mark> other context here'])).toEqual({ start: 17, end: 24 });
    expect(locate('nothing', ['<mark>refused</mark>'])).toBeNull();
  });
  it('opens the fold that holds each kind of block', () => {
    expect(foldKeysFor('tool_result', 12)).toEqual(['12:output']);
    expect(foldKeysFor('reasoning', 12)).toEqual(['12:reasoning']);
  });
});
