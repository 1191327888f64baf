import { describe, expect, it } from 'vitest';
import type { Hit } from '../api/types';
import {
  byteColumnToIndex, errorMessage, filterClauses, isQueryError, removeClause, activeMonth, addFilter, appendClause, errorColumn, errorText, facetState, filterClause, fragmentSegments,
  groupHits, hasFilter, mergeHits, monthLabel, monthRange, moreLabel, parseClauses, rankingNote, projectName, quoteValue, removeField,
  removeFilter, sanitizeFragment, toggleFilter, toggleMonth,
} from './search';

describe('sanitizeFragment', () => {
  it('leaves terminal escapes out of fragments', () => {
    expect(sanitizeFragment('\x1b[31m<mark>FAIL</mark>\x1b[0m ok')).toBe('<mark>FAIL</mark> ok');
  });
  it('keeps <mark> and escaped text as Bleve sends it', () => {
    expect(sanitizeFragment('run <mark>deploy</mark> now')).toBe('run <mark>deploy</mark> now');
    expect(sanitizeFragment('a &lt;b&gt; &amp; <mark>c</mark>')).toBe('a &lt;b&gt; &amp; <mark>c</mark>');
  });

  it('escapes every other tag and attribute', () => {
    const out = sanitizeFragment('<script>alert(1)</script><img src=x onerror=alert(1)><mark onclick="x">y</mark>');
    expect(out).not.toMatch(/<(?!\/?mark>)/);
    expect(out).toContain('&lt;script&gt;');
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(out).toContain('&lt;mark onclick=&quot;x&quot;&gt;');
  });

  it('does not let decoded entities become markup', () => {
    // Bleve escapes the source text once; decoding it must never produce live tags.
    const out = sanitizeFragment('&lt;script&gt;x&lt;/script&gt; &#60;b&#62; &#x3c;i&#x3e;');
    expect(out).toBe('&lt;script&gt;x&lt;/script&gt; &lt;b&gt; &lt;i&gt;');
    // Text that itself contains an escaped entity stays visible as written.
    expect(sanitizeFragment('&amp;lt;mark&amp;gt;')).toBe('&amp;lt;mark&amp;gt;');
    expect(fragmentSegments('&amp;lt;mark&amp;gt;')).toEqual([{ text: '&lt;mark&gt;', mark: false }]);
  });

  it('balances marks and drops stray closers', () => {
    expect(sanitizeFragment('a</mark>b<mark>c')).toBe('ab<mark>c</mark>');
    expect(sanitizeFragment('<MARK>x</MARK>')).toBe('<mark>x</mark>');
    expect(sanitizeFragment('<mark><mark>x</mark></mark>y')).toBe('<mark>x</mark>y');
  });

  it('escapes quotes and handles odd references', () => {
    expect(sanitizeFragment(`"it's"`)).toBe('&quot;it&#39;s&quot;');
    expect(sanitizeFragment('&#34;q&#34; &bogus; &#0; &#xD800;')).toBe('&quot;q&quot; &amp;bogus; \ufffd \ufffd');
  });

  it('splits into segments', () => {
    expect(fragmentSegments('a <mark>b</mark><mark>c</mark> d')).toEqual([
      { text: 'a ', mark: false },
      { text: 'bc', mark: true },
      { text: ' d', mark: false },
    ]);
  });
});

describe('parseClauses', () => {
  it('finds filters, phrases, groups and signs', () => {
    const cs = parseClauses('deploy "a b" -tool:bash (x OR y) project:"/tmp/my dir" NOT kind:title http://x');
    expect(cs.map((c) => c.raw)).toEqual([
      'deploy', '"a b"', '-tool:bash', '(x OR y)', 'project:"/tmp/my dir"', 'NOT kind:title', 'http://x',
    ]);
    expect(cs[2]).toMatchObject({ neg: true, field: 'tool', value: 'bash' });
    expect(cs[4]).toMatchObject({ neg: false, field: 'project', value: '/tmp/my dir', quoted: true });
    expect(cs[5]).toMatchObject({ neg: true, field: 'kind', value: 'title' });
    expect(cs[6].field).toBeUndefined();
  });

  it('treats signs before non-letters as text', () => {
    expect(parseClauses('--force -1 a - b').every((c) => !c.neg)).toBe(true);
  });

  it('unescapes quoted values', () => {
    expect(parseClauses('project:"C:\\\\dir\\\\" tool:"a\\"b"').map((c) => c.value)).toEqual(['C:\\dir\\', 'a"b']);
  });
});

describe('quoting', () => {
  it('leaves simple values bare', () => {
    expect(quoteValue('bash')).toBe('bash');
    expect(quoteValue('/home/dev/project-1')).toBe('/home/dev/project-1');
    expect(quoteValue('G:\\dsh客户端\\proj-1')).toBe('G:\\dsh客户端\\proj-1');
  });

  it('quotes spaces, quotes, parentheses and trailing wildcards', () => {
    expect(quoteValue('/tmp/spaces in path 6')).toBe('"/tmp/spaces in path 6"');
    expect(quoteValue('a"b')).toBe('"a\\"b"');
    expect(quoteValue('f(x)')).toBe('"f(x)"');
    expect(quoteValue('abc*')).toBe('"abc*"');
    expect(quoteValue('')).toBe('""');
  });

  it('escapes only the backslashes the lexer would read as escapes', () => {
    expect(quoteValue('C:\\my dir\\')).toBe('"C:\\my dir\\\\"');
    expect(quoteValue('\\\\srv\\a b')).toBe('"\\\\\\srv\\a b"');
    // Round trip through the clause parser.
    for (const v of ['C:\\my dir\\', '\\\\srv\\a b', 'x "y" \\"z', 'plain']) {
      expect(parseClauses(filterClause('project', v))[0].value).toBe(v);
    }
  });
});

describe('facet → query editing', () => {
  it('adds filters at the end', () => {
    expect(addFilter('', 'tool', 'bash')).toBe('tool:bash');
    expect(addFilter('deploy failed', 'tool', 'bash')).toBe('deploy failed tool:bash');
    expect(addFilter('deploy', 'project', '/tmp/a b')).toBe('deploy project:"/tmp/a b"');
  });

  it('does not add a filter twice', () => {
    expect(addFilter('deploy tool:bash', 'tool', 'bash')).toBe('deploy tool:bash');
    expect(addFilter('deploy tool:Bash', 'tool', 'bash')).toBe('deploy tool:Bash');
    expect(addFilter('kind:prompt', 'kind', 'human')).toBe('kind:prompt');
  });

  it('groups a top-level OR before narrowing it', () => {
    expect(addFilter('a OR b', 'tool', 'bash')).toBe('(a OR b) tool:bash');
    expect(addFilter('(a OR b) c', 'tool', 'bash')).toBe('(a OR b) c tool:bash');
    expect(appendClause('  ', 'x')).toBe('x');
  });

  it('removes filters wherever they are, tidying spaces', () => {
    expect(removeFilter('tool:bash deploy', 'tool', 'bash')).toBe('deploy');
    expect(removeFilter('deploy  tool:bash   failed', 'tool', 'bash')).toBe('deploy failed');
    expect(removeFilter('deploy project:"/tmp/a b"', 'project', '/tmp/a b')).toBe('deploy');
    expect(removeFilter('a -tool:bash', 'tool', 'bash')).toBe('a');
    expect(removeFilter('a -tool:bash', 'tool', 'bash', false)).toBe('a -tool:bash');
    // Inside a group it is not a top-level filter: left alone.
    expect(removeFilter('(tool:bash OR x)', 'tool', 'bash')).toBe('(tool:bash OR x)');
    expect(removeFilter('tool:bashful', 'tool', 'bash')).toBe('tool:bashful');
  });

  it('toggles', () => {
    let q = 'error';
    q = toggleFilter(q, 'kind', 'tool_result');
    expect(q).toBe('error kind:tool_result');
    expect(hasFilter(q, 'kind', 'tool_result')).toBe(true);
    q = toggleFilter(q, 'kind', 'tool_result');
    expect(q).toBe('error');
  });

  it('swaps the sign when excluding an included value', () => {
    expect(toggleFilter('a tool:bash', 'tool', 'bash', true)).toBe('a -tool:bash');
    expect(toggleFilter('a -tool:bash', 'tool', 'bash')).toBe('a tool:bash');
    expect(facetState('a -tool:bash', 'tool', 'bash')).toBe('excluded');
    expect(facetState('a tool:bash', 'tool', 'bash')).toBe('on');
    expect(facetState('a', 'tool', 'bash')).toBe('off');
  });

  it('removes whole fields', () => {
    expect(removeField('x since:7d before:2026-01-01 y', 'since', 'before')).toBe('x y');
  });
});

describe('filter chips', () => {
  it('lists filters and removes one', () => {
    const q = 'deploy tool:bash -kind:title "x y"';
    const fs = filterClauses(q);
    expect(fs.map((c) => c.raw)).toEqual(['tool:bash', '-kind:title']);
    expect(removeClause(q, fs[1])).toBe('deploy tool:bash "x y"');
  });
});

describe('month facet', () => {
  it('computes UTC month ranges across the year end', () => {
    expect(monthRange('2026-08')).toEqual({ since: '2026-08-01', before: '2026-09-01' });
    expect(monthRange('2026-12')).toEqual({ since: '2026-12-01', before: '2027-01-01' });
  });

  it('toggles a since/before range, replacing other ranges', () => {
    let q = toggleMonth('deploy since:7d', '2026-08');
    expect(q).toBe('deploy since:2026-08-01 before:2026-09-01');
    expect(activeMonth(q)).toBe('2026-08');
    expect(facetState(q, 'month', '2026-08')).toBe('on');
    q = toggleMonth(q, '2026-12');
    expect(q).toBe('deploy since:2026-12-01 before:2027-01-01');
    q = toggleMonth(q, '2026-12');
    expect(q).toBe('deploy');
    expect(activeMonth('month:2026-03')).toBe('2026-03');
    expect(activeMonth('since:2026-03-01')).toBeNull();
  });

  it('labels months', () => {
    expect(monthLabel('2026-08')).toBe('Aug 2026');
  });
});

describe('errors', () => {
  it('phrases failures', () => {
    expect(errorMessage({ name: 'ApiError', message: 'index is not open' })).toBe('index is not open');
    expect(errorMessage(new TypeError('Failed to fetch'))).toMatch(/Could not reach Logbook/);
    expect(errorMessage(new Error('boom'))).toBe('boom');
  });

  it('recognises fixable query errors', () => {
    expect(isQueryError({ status: 422, message: 'x' })).toBe(true);
    expect(isQueryError({ status: 0, message: 'search: query: col 3: unterminated quote' })).toBe(true);
    expect(isQueryError({ status: 500, message: 'index closed' })).toBe(false);
    expect(isQueryError(null)).toBe(false);
  });

  it('maps byte columns to character indexes', () => {
    expect(byteColumnToIndex('abc "d', 5)).toBe(4);
    // 写入 is 6 bytes in UTF-8; the quote after it is byte 7 (col 8).
    expect(byteColumnToIndex('写入 "x', 8)).toBe(3);
    expect(byteColumnToIndex('🚀 (', 6)).toBe(3);
    expect(byteColumnToIndex('ab', 10)).toBe(2);
  });

  it('reads the column', () => {
    const m = 'search: query: col 7: unterminated quote';
    expect(errorColumn(m)).toBe(7);
    expect(errorText(m)).toBe('unterminated quote');
    expect(errorColumn('index is not open')).toBeNull();
  });
});

function hit(id: string, session: string, seq: number): Hit {
  return {
    id, session_id: session, seq, kind: 'assistant', role: 'assistant', tool: '', project: '', agent: 'dsh', surface: 'current',
    time: '2026-08-16T10:00:00Z', is_error: false, score: 1, fragments: [],
  };
}

describe('grouping hits', () => {
  it('groups by session in first-seen order', () => {
    const hits = [hit('1', 'A', 5), hit('2', 'B', 1), hit('3', 'A', 9), hit('4', 'C', 2), hit('5', 'B', 3)];
    const g = groupHits(hits);
    expect(g.map((x) => x.session_id)).toEqual(['A', 'B', 'C']);
    expect(g[0].hits.map((h) => h.seq)).toEqual([5, 9]);
    expect(g[1].hits.map((h) => h.seq)).toEqual([1, 3]);
    expect(groupHits([])).toEqual([]);
  });

  it('keeps shown hits when more are loaded', () => {
    const a = [hit('1', 'A', 5), hit('2', 'B', 1)];
    const merged = mergeHits(a, [hit('2', 'B', 1), hit('3', 'A', 7)]);
    expect(merged.map((h) => h.id)).toEqual(['1', '2', '3']);
    expect(groupHits(merged)[0].hits.map((h) => h.seq)).toEqual([5, 7]);
  });
});

describe('ranking and counting notes', () => {
  it('says nothing of a page ranked among all matches with an exact count', () => {
    expect(rankingNote(0, true)).toBeNull();
  });
  it('names the window a relevance page was ranked in, and offers to rank all', () => {
    expect(rankingNote(512, true)).toEqual({ text: 'Ranked among the 512 newest matches', action: 'Rank all' });
    expect(rankingNote(512, false)).toEqual({
      text: 'Ranked among the 512 newest matches; the count is an estimate', action: 'Rank all',
    });
    expect(rankingNote(4096, true)?.text).toBe(`Ranked among the ${(4096).toLocaleString()} newest matches`);
  });
  it('says when only the count is an estimate', () => {
    expect(rankingNote(0, false)).toEqual({ text: 'The count is an estimate', action: 'Count all' });
  });
  it('labels Load more with what is left, about when estimated', () => {
    expect(moreLabel(100, 40, true)).toBe('Load more (60 left)');
    expect(moreLabel(100, 40, false)).toBe('Load more (about 60 left)');
    expect(moreLabel(30, 40, false), 'an estimate below what was shown gives no number').toBe('Load more');
  });
});

describe('names', () => {
  it('shortens project paths', () => {
    expect(projectName('/home/dev/project-1')).toBe('project-1');
    expect(projectName('G:\\dsh客户端\\proj-1')).toBe('proj-1');
    expect(projectName('/srv/x/')).toBe('x');
    expect(projectName('')).toBe('(no project)');
  });
});
