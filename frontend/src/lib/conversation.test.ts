import { describe, expect, it } from 'vitest';
import type { Compaction, TimelineItem, TimelinePage, ToolCall } from '../api/types';
import {
  buildRows, cleanMarker, compactionById, itemKey, describeTool, findItemIndex, firstLine, foldChars, foldText, foldToggleLabel, countLines, needsScrollBox, indexCompactions, isRevealed, mergePage, emptyLoaded,
  nextTurnRow, replacedCount, rowOfItem, problemCount, sessionProblems, warningKinds, shadowOwner, todoBox, tailProblem, tailState, toggleCompaction, trimLoaded, turnSpans,
  type Row,
} from './conversation';

const T = '2026-08-01T10:00:00Z';

function msg(seq: number, p: Partial<TimelineItem> = {}, text = 'hello'): TimelineItem {
  return {
    seq, type: 'assistant/message', kind: 'message', time: T, turn: 1, step: 1, surface: 'current',
    message: {
      session_id: 's', seq, time: T, turn: 1, step: 1, role: 'assistant', kind: 'assistant', text, surface: 'current',
    },
    ...p,
  };
}
function turn(seq: number, n: number, type: 'turn/start' | 'turn/end', status?: string): TimelineItem {
  return { seq, type, kind: 'turn', time: T, turn: n, step: null, surface: 'log-only', marker: { label: `turn ${n}`, status } };
}
function tool(seq: number, p: Partial<ToolCall> = {}, item: Partial<TimelineItem> = {}): TimelineItem {
  return {
    seq, type: 'tool/call', kind: 'tool', time: T, turn: 1, step: 1, surface: 'current',
    tool: {
      session_id: 's', call_id: 'c' + seq, name: 'bash', arguments: '{"command":"ls"}', turn: 1, step: 1, call_seq: seq,
      call_time: T, result_seq: seq + 1, result_time: T, output: 'a\nb', is_error: false, ...p,
    },
    ...item,
  };
}
function comp(seq: number, c: Partial<Compaction>): TimelineItem {
  return {
    seq, type: 'compaction/start', kind: 'compaction', time: T, turn: 2, step: null, surface: 'log-only',
    compaction: {
      session_id: 's', compactionId: 'k' + seq, kind: 'compaction', turn: 2, status: 'ok', started_at: T, ended_at: T,
      start_seq: seq, summary_seq: seq + 1, replace_seq: seq + 2, end_seq: seq + 3, summary: 'sum', shadowed_start: null,
      shadowed_end: null, shadowedSeqs: [], shadowed_tokens: 1000, error: null, ...c,
    },
  };
}
function page(items: TimelineItem[], hb = false, ha = false, total = 100): TimelinePage {
  return { session_id: 's', items, has_before: hb, has_after: ha, total };
}

describe('mergePage / trimLoaded', () => {
  it('replaces, prepends and appends, de-duplicating by seq and keeping order', () => {
    let l = mergePage(emptyLoaded(), page([msg(10), msg(11), msg(12)], true, true), 'replace');
    expect(l.items.map((i) => i.seq)).toEqual([10, 11, 12]);
    l = mergePage(l, page([msg(7), msg(9), msg(10)], false, true), 'before');
    expect(l.items.map((i) => i.seq)).toEqual([7, 9, 10, 11, 12]);
    expect(l.hasBefore).toBe(false);
    expect(l.hasAfter).toBe(true);
    l = mergePage(l, page([msg(12), msg(20)], true, false), 'after');
    expect(l.items.map((i) => i.seq)).toEqual([7, 9, 10, 11, 12, 20]);
    expect([l.hasBefore, l.hasAfter]).toEqual([false, false]);
    l = mergePage(l, page([msg(50)], true, true), 'replace');
    expect(l.items.map((i) => i.seq)).toEqual([50]);
  });
  it('ends a side when a page adds nothing to it', () => {
    const l = mergePage(emptyLoaded(), page([msg(10), msg(11)], true, true), 'replace');
    expect(mergePage(l, page([msg(11)], true, true), 'after').hasAfter).toBe(false);
    expect(mergePage(l, page([], true, true), 'before').hasBefore).toBe(false);
    expect(mergePage(l, page([msg(3)], true, true), 'before').hasBefore).toBe(true);
  });
  it('trims the far end of a big window and marks it loadable', () => {
    const l = { items: [msg(1), msg(2), msg(3), msg(4)], hasBefore: false, hasAfter: false, total: 4 };
    expect(trimLoaded(l, 10, 'end')).toBe(l);
    const e = trimLoaded(l, 2, 'end');
    expect(e.items.map((i) => i.seq)).toEqual([3, 4]);
    expect(e.hasBefore).toBe(true);
    const s = trimLoaded(l, 2, 'start');
    expect(s.items.map((i) => i.seq)).toEqual([1, 2]);
    expect(s.hasAfter).toBe(true);
  });
});

describe('findItemIndex / rowOfItem', () => {
  const items = [turn(0, 1, 'turn/start'), msg(3), tool(5, { result_seq: 9 }), msg(12), comp(20, {})];
  it('finds the item at a seq, the item whose events include it, else the one before', () => {
    expect(findItemIndex(items, 3)).toBe(1);
    expect(findItemIndex(items, 9)).toBe(2); // the tool result
    expect(findItemIndex(items, 22)).toBe(4); // the compaction's replace seq
    expect(findItemIndex(items, 7)).toBe(2); // a chunk between call and result
    expect(findItemIndex(items, 4)).toBe(1); // a seq with no item: the one before
    expect(findItemIndex(items, -1)).toBe(-1);
    expect(findItemIndex(items, 1000)).toBe(4);
  });
  it('maps a seq to its row', () => {
    const rows = buildRows(items, new Set());
    expect(rowOfItem(rows, 12)).toBe(3);
    expect(rowOfItem(rows, 13)).toBe(3);
  });
});

describe('compactions and shadowed items', () => {
  // Messages 2 and 3 were replaced by compaction 10 (replace seq 12); 4 by a prune with no loaded item.
  const a = msg(2, { surface: 'shadowed', shadowed_by: 12 });
  const b = tool(3, {}, { surface: 'shadowed', shadowed_by: 12 });
  const c = msg(4, { surface: 'shadowed', shadowed_by: 99 });
  const live = msg(5);
  const k = comp(10, { shadowedSeqs: [2, 3] });
  const items = [a, b, c, live, k];
  const idx = indexCompactions(items);

  it('attributes shadowed items to their compaction by shadowed_by, shadowedSeqs or range', () => {
    expect(shadowOwner(a, idx)).toBe(k);
    const bySeqs = msg(3, { surface: 'shadowed' });
    expect(shadowOwner(bySeqs, idx)).toBe(k);
    const r = comp(30, { shadowed_start: 20, shadowed_end: 25, replace_seq: 32 });
    const idx2 = indexCompactions([r]);
    expect(shadowOwner(msg(22, { surface: 'shadowed' }), idx2)).toBe(r);
    expect(shadowOwner(c, idx)).toBeNull();
  });

  it('hides shadowed items by default, folding each run into a gap row', () => {
    const rows = buildRows(items, new Set(), idx);
    expect(rows.map((r) => r.type)).toEqual(['gap', 'gap', 'item', 'item']);
    const g = rows[0] as Extract<Row, { type: 'gap' }>;
    expect([g.count, g.firstSeq, g.lastSeq, g.owner]).toEqual([2, 2, 3, k]);
    expect((rows[1] as Extract<Row, { type: 'gap' }>).shadowedBy).toBe(99);
    expect(replacedCount(k, items, idx)).toBe(2);
  });

  it('reveals a compaction’s originals in place when its toggle is on, and hides them again', () => {
    const on = toggleCompaction(k, new Set());
    expect(isRevealed(a, on, idx)).toBe(true);
    expect(isRevealed(c, on, idx)).toBe(false);
    const rows = buildRows(items, on, idx);
    expect(rows.map((r) => (r.type === 'item' ? `${r.item.seq}${r.shadowed ? 's' : ''}` : 'gap'))).toEqual(['2s', '3s', 'gap', '5', '10']);
    const off = toggleCompaction(k, on);
    expect(off.size).toBe(0);
    expect(buildRows(items, off, idx)[0].type).toBe('gap');
  });

  it('reveals by the replacing seq alone when the compaction is not loaded', () => {
    const rows = buildRows([c, live], new Set([99]));
    expect(rows.map((r) => r.type)).toEqual(['item', 'item']);
    expect((rows[0] as Extract<Row, { type: 'item' }>).shadowed).toBe(true);
  });
});

describe('turns and steps', () => {
  const items = [
    turn(0, 1, 'turn/start'), msg(1, { step: 1 }), tool(2, {}, { step: 1 }), msg(4, { step: 2 }), turn(5, 1, 'turn/end', 'completed'),
    turn(6, 2, 'turn/start'), msg(7, { turn: 2, step: 1 }),
  ];
  it('marks the first row of each step and finds turn starts', () => {
    const rows = buildRows(items, new Set());
    const starts = rows.map((r) => (r.type === 'item' && r.stepStart ? r.item.seq : null)).filter((x) => x !== null);
    expect(starts).toEqual([1, 4, 7]);
    expect(nextTurnRow(rows, 0, 1)).toBe(5);
    expect(nextTurnRow(rows, 5, -1)).toBe(0);
    expect(nextTurnRow(rows, 5, 1)).toBe(6);
  });
  it('pairs turn starts and ends', () => {
    const m = turnSpans(items);
    expect(m.get(1)?.end?.seq).toBe(5);
    expect(m.get(2)?.end).toBeUndefined();
  });
});

describe('forks', () => {
  it('marks inherited rows and the first row of the fork’s own work', () => {
    const items = [msg(1, { inherited: true } as Partial<TimelineItem>), msg(2, { inherited: true } as Partial<TimelineItem>), msg(3), msg(4)];
    const rows = buildRows(items, new Set()) as Extract<Row, { type: 'item' }>[];
    expect(rows.map((r) => [r.inherited, r.forkPoint])).toEqual([[true, false], [true, false], [false, true], [false, false]]);
  });
});

describe('synthetic turn starts (a log that names no turns)', () => {
  // OpenHands: the archive puts a turn start before each prompt, at the prompt's seq.
  const head = (seq: number, n: number): TimelineItem => ({ ...turn(seq, n, 'turn/start'), synthetic: true, marker: {} as TimelineItem['marker'] });
  const prompt = (seq: number, n: number): TimelineItem =>
    msg(seq, { type: 'MessageEvent', turn: n, step: null }, 'do it');
  const page = (items: TimelineItem[]): TimelinePage => ({ session_id: 's', items, has_before: false, has_after: false, total: items.length });
  const items = [msg(0, { turn: null, step: null }), head(1, 1), prompt(1, 1), tool(2, {}, { turn: 1, step: null }), head(4, 2), prompt(4, 2), msg(5, { turn: 2, step: null })];

  it('keeps a turn start and its prompt, with unique keys, the turn start first', () => {
    const merged = mergePage(mergePage(emptyLoaded(), page(items.slice(0, 4)), 'replace'), page(items.slice(1)), 'after');
    expect(merged.items.map(itemKey)).toEqual(['i:0', 't:1', 'i:1', 'i:2', 't:4', 'i:4', 'i:5']);
    const rows = buildRows(merged.items, new Set());
    expect(new Set(rows.map((r) => r.key)).size).toBe(rows.length);
  });

  it('finds the prompt by seq, and the turn start as the head of its turn', () => {
    expect(findItemIndex(items, 4)).toBe(5);
    const rows = buildRows(items, new Set());
    expect(rowOfItem(rows, 4)).toBe(5);
    expect(rowOfItem(rows, 4, true)).toBe(4);
    expect(rowOfItem(rows, 5, true)).toBe(6);
    expect(nextTurnRow(rows, 0, 1)).toBe(1);
    expect(nextTurnRow(rows, 2, 1)).toBe(4);
    expect(turnSpans(items).get(2)?.start?.seq).toBe(4);
  });

  it('does not call the last turn unfinished: such a turn never ends', () => {
    expect(tailState(items).openTurn).toBeNull();
    expect(tailProblem(tailState(items))).toBeNull();
  });
});

describe('tailState', () => {
  it('reports a log that ends mid-turn with a pending tool call', () => {
    const items = [turn(0, 8, 'turn/start'), msg(1), tool(2, { name: 'pwsh', result_seq: null, output: null })];
    const t = tailState(items);
    expect(t.openTurn).toBe(8);
    expect(t.pending.map((p) => p.call_seq)).toEqual([2]);
    expect(tailProblem(t)).toBe('The log ends mid-turn: turn 8 started but never ended; the pwsh call at seq 2 never got a result.');
  });
  it('says nothing for a cleanly ended log', () => {
    const t = tailState([turn(0, 1, 'turn/start'), msg(1), turn(2, 1, 'turn/end', 'completed')]);
    expect(tailProblem(t)).toBeNull();
  });
  it('reports a last turn that ended badly', () => {
    const t = tailState([turn(0, 1, 'turn/start'), msg(1), turn(2, 1, 'turn/end', 'aborted')]);
    expect(tailProblem(t)).toBe('Turn 1 ended “aborted”.');
  });
});

describe('describeTool', () => {
  it('shows a shell command prominently', () => {
    const v = describeTool('pwsh', JSON.stringify({ command: 'Remove-Item x -Force', description: 'Delete it' }));
    expect(v).toMatchObject({ kind: 'shell', command: 'Remove-Item x -Force', description: 'Delete it', summary: 'Remove-Item x -Force' });
    expect(describeTool('run', JSON.stringify({ command: ['git', 'status'] })).command).toBe('git status');
  });
  it('reads edits, writes, reads, searches and todos', () => {
    expect(describeTool('edit', JSON.stringify({ file_path: '/a.go', old_string: 'x', new_string: 'y' }))).toMatchObject({ kind: 'edit', path: '/a.go', oldText: 'x', newText: 'y' });
    expect(describeTool('write', JSON.stringify({ file_path: '/a.txt', content: 'hi' }))).toMatchObject({ kind: 'write', content: 'hi', summary: '/a.txt' });
    expect(describeTool('read', JSON.stringify({ file_path: '/a.txt', offset: 10, limit: 5 })).summary).toBe('/a.txt  (10, 5)');
    expect(describeTool('grep', JSON.stringify({ pattern: 'foo', path: '/src' })).summary).toBe('foo  in /src');
    const t = describeTool('todo_write', JSON.stringify({ todos: [{ content: 'a', status: 'completed' }, { content: 'b', status: 'pending' }] }));
    expect(t).toMatchObject({ kind: 'todo', summary: '1/2 done' });
  });
  it('pretty-prints JSON and keeps non-JSON arguments as written', () => {
    const v = describeTool('mystery', '{"a":1,"b":"two"}');
    expect(v.kind).toBe('generic');
    expect(v.pretty).toBe('{\n  "a": 1,\n  "b": "two"\n}');
    expect(v.summary).toBe('two');
    expect(describeTool('mystery', 'not json {').pretty).toBe('not json {');
  });
});

describe('foldText', () => {
  it('keeps short text whole', () => {
    expect(foldText('a\nb\nc', 14)).toEqual({ text: 'a\nb\nc', folded: false, totalLines: 3, hiddenLines: 0 });
  });
  it('folds long output to its first lines', () => {
    const text = Array.from({ length: 100 }, (_, i) => 'line ' + i).join('\n');
    const f = foldText(text, 10);
    expect(f.folded).toBe(true);
    expect(f.totalLines).toBe(100);
    expect(f.hiddenLines).toBe(90);
    expect(f.text.split('\n')).toHaveLength(10);
  });
  it('never folds away just one or two lines', () => {
    const text = Array.from({ length: 16 }, (_, i) => 'l' + i).join('\n');
    expect(foldText(text, 14).folded).toBe(false);
  });
  it('folds one huge line by characters', () => {
    const f = foldText('x'.repeat(100000), 14, 4000);
    expect(f.folded).toBe(true);
    expect(f.text.length).toBe(4001);
  });
  it('counts lines', () => {
    expect(countLines('')).toBe(0);
    expect(countLines('a')).toBe(1);
    expect(countLines('a\n')).toBe(1);
    expect(countLines('a\nb')).toBe(2);
  });
});

describe('sessionProblems', () => {
  const session = { health: 'ok' } as import('../api/types').Session;
  it('says nothing for a healthy, complete log', () => {
    expect(sessionProblems({ session, files: [], problems: [] }, null)).toEqual([]);
  });
  it('states the verdict with the file’s message, then warnings and the tail', () => {
    const d = {
      session: { ...session, health: 'recovered' as const },
      files: [{ error_message: 'the file ends inside a zstd frame' } as import('../api/types').FileStatus],
      problems: [
        { kind: 'torn-tail', line: 5351, offset: 1, message: 'the file ends inside a zstd frame' },
        { kind: 'seq-gap', line: 9, offset: 1, message: 'expected 4, got 6' },
      ],
    };
    const p = sessionProblems(d, 'The log ends mid-turn: turn 8 started but never ended.');
    expect(p.map((x) => x.tone)).toEqual(['warn', 'warn', 'warn']);
    expect(p.map((x) => x.kind)).toEqual(['verdict', 'warning', 'tail']);
    expect(p[0].text).toContain('recovered: the file ends inside a zstd frame');
    expect(p[1].text).toBe('seq-gap: line 9: expected 4, got 6');
    expect(p[2].text).toContain('mid-turn');
  });
  it('folds the importer’s interrupted-tail warning into the tail line', () => {
    const problems = [{ kind: 'interrupted-tail', line: 5350, offset: 0, message: 'interrupted tail: the log ends after tool/call (seq 87207)' }];
    const p = sessionProblems({ session, files: [], problems }, 'The log ends mid-turn: x.');
    expect(p).toEqual([{ tone: 'warn', kind: 'tail', text: 'The log ends mid-turn: x.', detail: problems[0].message }]);
    expect(sessionProblems({ session, files: [], problems }, null)[0].text).toContain('interrupted-tail: line 5350');
  });
  it('says a session damaged upstream is the last good version, once', () => {
    const problems = [
      { kind: 'bad-json', line: 1000, offset: 5, message: 'line 1000 is not valid JSON' },
      { kind: 'damaged-upstream', line: 1000, offset: 5, message: 'the file changed in lines already archived and now reads as corrupt' },
    ];
    const p = sessionProblems({ session: { ...session, health: 'damaged' }, files: [], problems }, null);
    expect(p[0]).toMatchObject({ tone: 'err', kind: 'verdict' });
    expect(p[0].text).toContain('damaged upstream');
    expect(p[0].text).toContain('last good version');
    expect(p.filter((x) => x.text.includes('changed in lines already archived'))).toHaveLength(1);
  });
  it('marks corrupt logs as errors and caps the warnings', () => {
    const problems = Array.from({ length: 9 }, (_, i) => ({ kind: 'w', line: i + 1, offset: 0, message: 'm' + i }));
    const p = sessionProblems({ session: { ...session, health: 'corrupt' }, files: [], problems }, null, 3);
    expect(p[0]).toMatchObject({ tone: 'err' });
    expect(p[0].text).toContain('line 1: m0');
    expect(p).toHaveLength(1 + 3 + 1);
    expect(p[4].text).toBe('…and 5 more import warnings.');
    expect(p[4].more).toBe(5);
    expect(problemCount(p)).toBe(1 + 8); // the verdict states m0 itself
  });
  it('names the kinds of warnings for a folded summary', () => {
    const problems = [
      { kind: 'unpaired-approval', line: 3, offset: 0, message: 'a' },
      { kind: 'seq-gap', line: 4, offset: 0, message: 'b' },
      { kind: 'unpaired-approval', line: 5, offset: 0, message: 'c' },
      { kind: 'unpaired-approval', line: 6, offset: 0, message: 'd' },
    ];
    const p = sessionProblems({ session, files: [], problems }, null, 2);
    expect(warningKinds(p)).toEqual(['unpaired-approval', 'seq-gap']);
    expect(problemCount(p)).toBe(4);
    expect(p[2].text).toBe('…and 2 more import warnings.');
  });
});

describe('todoBox', () => {
  it('checks completed items and half-fills the one in progress', () => {
    expect(todoBox('completed')).toBe('☑');
    expect(todoBox('in_progress')).toBe('◐');
    expect(todoBox('pending')).toBe('☐');
    expect(todoBox('')).toBe('☐');
  });
});

describe('folding long text for display', () => {
  it('folds one huge line about as short as maxLines wrapped lines', () => {
    const cmd = 'echo ' + 'verylongtoken'.repeat(800);
    const f = foldText(cmd, 8, foldChars(8));
    expect(f.folded).toBe(true);
    expect(f.text.length).toBeLessThanOrEqual(foldChars(8) + 1);
    expect(f.hiddenLines).toBe(0);
    expect(foldChars(1)).toBe(600);
  });
  it('labels the toggle by lines when lines are hidden, by characters when one line was cut', () => {
    const many = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
    expect(foldToggleLabel(foldText(many, 10), many.length, false)).toBe('Show all 50 lines');
    const one = 'x'.repeat(10_000);
    expect(foldToggleLabel(foldText(one, 10, foldChars(10)), one.length, false)).toBe('Show all 10,000 characters');
    expect(foldToggleLabel(foldText(one, 10), one.length, true)).toBe('Show less');
  });
  it('gives long unfolded text its own scroll box', () => {
    expect(needsScrollBox('a\nb', 2)).toBe(false);
    expect(needsScrollBox('x', 61)).toBe(true);
    expect(needsScrollBox('x'.repeat(12_001), 1)).toBe(true);
  });
  it('previews without terminal escapes', () => {
    expect(firstLine('\x1b[31mFAIL\x1b[0m src/a.go\nmore')).toBe('FAIL src/a.go');
  });
});

describe('compactionById', () => {
  it('finds the loaded compaction a ?reveal= link names', () => {
    const items = [msg(1), comp(5, {}), msg(6), comp(9, {})];
    expect(compactionById(items, 'k9')?.seq).toBe(9);
    expect(compactionById(items, 'k5')?.seq).toBe(5);
    expect(compactionById(items, 'nope')).toBeNull();
    expect(compactionById(items, null)).toBeNull();
  });
});

describe('cleanMarker', () => {
  it('drops terminal escapes from every text of a marker', () => {
    const m = cleanMarker({
      label: 'todo \x1b[1mlist\x1b[0m', detail: '\x1b[31mx\x1b[0m',
      todos: [{ content: 'fix \x1b[31mFAIL\x1b[0m', status: 'pending' }], fields: [{ name: 'n', value: '\x1b[2Kv' }],
    });
    expect(m).toEqual({ label: 'todo list', detail: 'x', todos: [{ content: 'fix FAIL', status: 'pending' }], fields: [{ name: 'n', value: 'v' }] });
    expect(cleanMarker({ label: 'plain' })).toEqual({ label: 'plain' });
  });
});
