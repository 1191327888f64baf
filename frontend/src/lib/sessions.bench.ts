import { bench, describe } from 'vitest';
import type { Session } from '../api/types';
import { filterSessions } from './sessions';

// The sessions list filters as a person types: `npm run bench` (vitest bench).
// It was held to 500 ms for the first filter of 10,000 sessions and 50 ms for the
// next; timing assertions in unit tests failed on a loaded machine.
function mk(i: number): Session {
  return {
    id: `session-${String(i).padStart(5, '0')}-aaaa`, agent: 'dsh', title: `task ${i} refactor`, project: '/home/u/proj',
    cwd: '/home/u/proj', seed_length: null, delegation_depth: 0, created_at: '2026-08-01T10:00:00Z',
    updated_at: '2026-08-01T11:00:00Z', models: ['m' + (i % 7)], records: 1, events: 1, last_seq: 0, turns: 1, messages: 1,
    tool_calls: 0, tokens: { input: 0, output: 0, reasoning: 0, cache_read: 0 }, health: 'ok',
  } as Session;
}

describe('filterSessions, 10,000 sessions', () => {
  const many = Array.from({ length: 10000 }, (_, i) => mk(i));
  bench('a filter of words and a model', () => {
    filterSessions(many, 'refactor m3');
  });
  bench('a filter of a title', () => {
    filterSessions(many, 'task 99');
  });
});
