import { describe, expect, it } from 'vitest';
import type { Session } from '../api/types';
import {
  buildRows, childCounts, filterSessions, groupSessions, highlight, modelsLabel, nextSessionRow, projectName, sessionRowNear,
  relationHint, sessionTitle, sortSessions,
} from './sessions';

let n = 0;
function mk(p: Partial<Session>): Session {
  n++;
  return {
    id: `session-${String(n).padStart(4, '0')}-aaaa`, agent: 'dsh', title: '', project: '/home/u/proj', cwd: '/home/u/proj',
    seed_length: null, delegation_depth: 0, created_at: '2026-08-01T10:00:00Z', updated_at: '2026-08-01T11:00:00Z',
    models: ['deepseek-v4-flash'], records: 1, events: 1, last_seq: 0, turns: 1, messages: 1, tool_calls: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache_read: 0 }, health: 'ok', ...p,
  };
}

describe('sessionTitle / projectName', () => {
  it('falls back to the short id', () => {
    expect(sessionTitle({ id: 'session-2d7d25bf-c4f9', title: '' })).toBe('2d7d25bf');
    expect(sessionTitle({ id: 'x', title: '  Fix it ' })).toBe('Fix it');
  });
  it('shows titles without terminal escapes', () => {
    expect(sessionTitle({ id: 'x', title: 'let \x1b[31mFAIL\x1b[0m go' })).toBe('let FAIL go');
    expect(sessionTitle({ id: 'session-abcdef012', title: '\x1b[0m' })).toBe('abcdef01');
  });
  it('names a project by its last path segment, Windows or POSIX', () => {
    expect(projectName('/home/u/proj/')).toBe('proj');
    expect(projectName('G:\\dsh客户端')).toBe('dsh客户端');
    expect(projectName('')).toBe('No working directory');
  });
});

describe('filterSessions', () => {
  const a = mk({ title: 'Deploy the API server', models: ['deepseek-v4-pro'] });
  const b = mk({ title: 'Write tests', cwd: '/srv/web', project: '/srv/web', health: 'corrupt' });
  const c = mk({ title: '测一下有没有写入权限', cwd: 'G:\\dsh客户端', project: 'G:\\dsh客户端', health: 'recovered' });
  const all = [a, b, c];

  it('matches every word (AND) across title, id, project and model, case-insensitively', () => {
    expect(filterSessions(all, 'deploy')).toEqual([a]);
    expect(filterSessions(all, 'DEPLOY pro')).toEqual([a]);
    expect(filterSessions(all, 'deploy web')).toEqual([]);
    expect(filterSessions(all, 'web')).toEqual([b]);
    expect(filterSessions(all, '写入')).toEqual([c]);
    expect(filterSessions(all, b.id.slice(8, 12))).toEqual([b]);
    expect(filterSessions(all, 'v4-pro')).toEqual([a]);
  });
  it('returns the same list for an empty filter', () => {
    expect(filterSessions(all, '   ')).toBe(all);
  });
  it('filters by health', () => {
    expect(filterSessions(all, '', 'corrupt')).toEqual([b]);
    expect(filterSessions(all, '', 'problems')).toEqual([b, c]);
    expect(filterSessions(all, 'write', 'ok')).toEqual([]);
  });
  it('filters 10,000 sessions (its speed: sessions.bench.ts)', () => {
    const many = Array.from({ length: 10000 }, (_, i) => mk({ title: `task ${i} refactor`, models: ['m' + (i % 7)] }));
    expect(filterSessions(many, 'refactor m3')).toHaveLength(1429);
    expect(filterSessions(many, 'task 99').map((s) => s.title)).toContain('task 99 refactor');
  });
});

describe('sortSessions / groupSessions', () => {
  const old = mk({ id: 'old', cwd: '/a', project: '/a', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:10:00Z', tool_calls: 50 });
  const mid = mk({ id: 'mid', cwd: '/b', project: '/b', created_at: '2026-02-01T00:00:00Z', updated_at: '2026-02-01T05:00:00Z', tokens: { input: 900, output: 100, reasoning: 0, cache_read: 0 } });
  const recent = mk({ id: 'recent', cwd: '/a', project: '/a', created_at: '2026-03-01T00:00:00Z', updated_at: '2026-03-01T00:01:00Z', tool_calls: 3 });

  it('sorts by each key', () => {
    const ids = (k: Parameters<typeof sortSessions>[1]) => sortSessions([old, mid, recent], k).map((s) => s.id);
    expect(ids('newest')).toEqual(['recent', 'mid', 'old']);
    expect(ids('oldest')).toEqual(['old', 'mid', 'recent']);
    expect(ids('tools')).toEqual(['old', 'recent', 'mid']);
    expect(ids('tokens')).toEqual(['mid', 'recent', 'old']);
    expect(ids('longest')).toEqual(['mid', 'old', 'recent']);
  });
  it('groups by project, groups ordered by their newest session, newest first inside', () => {
    const g = groupSessions(sortSessions([old, mid, recent], 'newest'));
    expect(g.map((x) => x.key)).toEqual(['/a', '/b']);
    expect(g[0].sessions.map((s) => s.id)).toEqual(['recent', 'old']);
    expect(g[0].name).toBe('a');
    expect(g[0].newest).toBe(Date.parse(recent.updated_at));
  });
  it('flattens into rows, hiding collapsed groups, and moves between session rows', () => {
    const g = groupSessions(sortSessions([old, mid, recent], 'newest'));
    const rows = buildRows(g, new Set(['/b']));
    expect(rows.map((r) => r.type)).toEqual(['group', 'session', 'session', 'group']);
    expect(nextSessionRow(rows, 0, 1)).toBe(1);
    expect(nextSessionRow(rows, 2, 1)).toBe(2);
    expect(nextSessionRow(rows, 1, -1)).toBe(1);
  });
  it('finds the session next to a folded project: below it, else above it', () => {
    const g = groupSessions(sortSessions([old, mid, recent], 'newest'));
    // /a folded: group, group, session (of /b)
    const foldA = buildRows(g, new Set(['/a']));
    expect(sessionRowNear(foldA, 0)).toBe(2);
    // /b folded: group, session, session, group: nothing below the last group
    const foldB = buildRows(g, new Set(['/b']));
    expect(sessionRowNear(foldB, 3)).toBe(2);
    expect(sessionRowNear(buildRows(g, new Set(['/a', '/b'])), 1)).toBe(-1);
  });
});

describe('relations', () => {
  const parent = mk({ id: 'p1', title: 'Parent work' });
  const fork = mk({ id: 'f1', parent_session: 'p1', seed_length: 40 });
  const sub = mk({ id: 's1', parent_session: 'p1', origin: 'subagent', delegation_depth: 2 });
  const orphan = mk({ id: 'o1', parent_session: 'session-deadbeef-0000' });
  const byId = new Map([parent, fork, sub].map((s) => [s.id, s]));

  it('names forks and subagents with depth and parent', () => {
    expect(relationHint(parent, byId)).toBeNull();
    expect(relationHint(fork, byId)).toMatchObject({ kind: 'fork', parentId: 'p1', parentTitle: 'Parent work' });
    expect(relationHint(sub, byId)).toMatchObject({ kind: 'subagent', label: 'subagent · depth 2' });
    expect(relationHint(orphan, byId)).toMatchObject({ kind: 'fork', parentTitle: 'deadbeef' });
  });
  it('counts children', () => {
    expect(childCounts([parent, fork, sub]).get('p1')).toBe(2);
  });
});

describe('highlight / modelsLabel', () => {
  it('marks every match, merging overlaps', () => {
    expect(highlight('Deploy the deployment', ['deploy'])).toEqual([
      { text: 'Deploy', match: true }, { text: ' the ', match: false }, { text: 'deploy', match: true }, { text: 'ment', match: false },
    ]);
    expect(highlight('abcdef', ['bcd', 'cde'])).toEqual([
      { text: 'a', match: false }, { text: 'bcde', match: true }, { text: 'f', match: false },
    ]);
    expect(highlight('x', [])).toEqual([{ text: 'x', match: false }]);
  });
  it('shortens model lists', () => {
    expect(modelsLabel(['deepseek/deepseek-v4-flash'])).toBe('deepseek-v4-flash');
    expect(modelsLabel(['a', 'b', 'c'])).toBe('a +2');
    expect(modelsLabel(['a', 'a'])).toBe('a');
    expect(modelsLabel([])).toBe('');
  });
});
