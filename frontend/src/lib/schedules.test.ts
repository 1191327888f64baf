import { describe, expect, it } from 'vitest';
import type { ScheduleFire, ScheduleItem } from '../api/types';
import {
  DEMO_LABEL, actionsFor, awaitingAnswer, countdown, fireSummary, fireTarget, groupSchedules, intervalLabel, joinArgs, kindLabel, sectionOf,
  splitArgs, stateLabel,
} from './schedules';

function item(over: Partial<ScheduleItem>): ScheduleItem {
  return {
    session_id: 'session-a', id: 'schedule-1', kind: 'at', prompt: 'ping', status: 'active', state: 'scheduled',
    scheduled_at: '2030-01-01T00:00:00Z', next_fire: '2030-01-01T00:00:00Z', created_seq: 1,
    created_at: '2029-12-01T00:00:00Z', dispatch_count: 0, logbook_state: 'scheduled',
    logbook_next_fire: '2030-01-01T00:00:00Z', fire_count: 0, ...over,
  };
}

function fire(over: Partial<ScheduleFire>): ScheduleFire {
  return {
    id: 1, session_id: 'session-a', schedule_id: 'schedule-1', fired_at: '2030-01-01T00:00:01Z',
    target_at: '2030-01-01T00:00:00Z', trigger: 'scheduled', action: 'notify', outcome: 'ok', attempts: 1,
    settles: true, ...over,
  };
}

describe('sections', () => {
  it('puts each Logbook state in its section', () => {
    const cases: [ScheduleItem['logbook_state'], string][] = [
      ['scheduled', 'upcoming'], ['overdue', 'overdue'], ['paused', 'paused'], ['fired', 'completed'],
      ['dismissed', 'completed'], ['completed', 'completed'], ['deleted', 'deleted'],
    ];
    for (const [state, section] of cases) expect(sectionOf(item({ logbook_state: state }))).toBe(section);
  });

  it('orders upcoming by next fire and completed by last activity', () => {
    const g = groupSchedules([
      item({ id: 'late', logbook_next_fire: '2030-03-01T00:00:00Z' }),
      item({ id: 'soon', logbook_next_fire: '2030-01-01T00:00:00Z' }),
      item({ id: 'old', logbook_state: 'fired', last_fire: fire({ fired_at: '2029-01-01T00:00:00Z' }) }),
      item({ id: 'new', logbook_state: 'fired', last_fire: fire({ fired_at: '2031-01-01T00:00:00Z' }) }),
      item({ id: 'gone', logbook_state: 'deleted', status: 'deleted', state: 'deleted' }),
    ]);
    expect(g.upcoming.map((x) => x.id)).toEqual(['soon', 'late']);
    expect(g.completed.map((x) => x.id)).toEqual(['new', 'old']);
    expect(g.deleted.map((x) => x.id)).toEqual(['gone']);
    expect(g.overdue).toEqual([]);
  });
});

describe('actions', () => {
  it('offers what each state allows, nothing once ended in the session', () => {
    expect(actionsFor(item({}))).toEqual(['fire', 'snooze', 'skip', 'pause', 'dismiss']);
    expect(actionsFor(item({ logbook_state: 'paused' }))).toEqual(['resume', 'fire', 'dismiss']);
    expect(actionsFor(item({ logbook_state: 'dismissed' }))).toEqual(['resume']);
    expect(actionsFor(item({ logbook_state: 'deleted' }))).toEqual([]);
    expect(actionsFor(item({ logbook_state: 'completed' }))).toEqual([]);
  });

  it('knows when a catch-up question waits for an answer', () => {
    const asked = item({ logbook_state: 'overdue', last_fire: fire({ outcome: 'asked', settles: false }) });
    expect(awaitingAnswer(asked)).toBe(true);
    expect(stateLabel(asked)).toBe('waiting for you');
    // A question about an earlier target is no longer pending.
    expect(awaitingAnswer({ ...asked, logbook_next_fire: '2030-01-01T01:00:00Z' })).toBe(false);
    expect(stateLabel(item({ logbook_state: 'overdue' }))).toBe('overdue');
  });

  it('labels a snoozed schedule', () => {
    const s = item({ snoozed_until: '2030-01-01T00:10:00Z', logbook_next_fire: '2030-01-01T00:10:00Z' });
    expect(stateLabel(s)).toBe('snoozed');
    expect(stateLabel(item({ snoozed_until: '2029-01-01T00:00:00Z' }))).toBe('upcoming');
  });
});

describe('times', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  it('counts down and up', () => {
    expect(countdown('2030-01-01T00:00:04Z', now)).toBe('in 4s');
    expect(countdown('2030-01-01T00:12:05Z', now)).toBe('in 12m 05s');
    expect(countdown('2030-01-01T03:20:00Z', now)).toBe('in 3h 20m');
    expect(countdown('2030-01-03T04:00:00Z', now)).toBe('in 2d 4h');
    expect(countdown('2029-12-31T23:55:00Z', now)).toBe('5m 00s ago');
    expect(countdown(null, now)).toBe('');
  });

  it('names intervals and kinds', () => {
    expect(intervalLabel(300)).toBe('5 min');
    expect(intervalLabel(3600)).toBe('1 h');
    expect(intervalLabel(5400)).toBe('1 h 30 min');
    expect(intervalLabel(86400 * 2)).toBe('2 d');
    expect(intervalLabel(45)).toBe('45 s');
    expect(kindLabel(item({ kind: 'every', every_seconds: 900 }))).toBe('every 15 min');
    expect(kindLabel(item({ kind: 'after', after_seconds: 120 }))).toBe('after 2 min');
    expect(kindLabel(item({}))).toBe('at');
  });

  it('summarises fires', () => {
    expect(fireSummary(fire({}))).toBe('fired on time via notify');
    expect(fireSummary(fire({ outcome: 'failed', trigger: 'catch-up', action: 'webhook', attempts: 3 })))
      .toBe('failed as catch-up via webhook after 3 attempts');
    expect(fireSummary(fire({ outcome: 'skipped', trigger: 'manual', action: 'none' }))).toBe('skipped by hand');
    expect(fireSummary(fire({ outcome: 'skipped', trigger: 'catch-up', action: 'none' }))).toBe('skipped a missed time');
    expect(fireSummary(fire({ outcome: 'asked', trigger: 'catch-up', action: 'none' }))).toBe('asked you about a missed time');
  });
});

describe('command lines', () => {
  it('splits like a shell would, without ever being one', () => {
    expect(splitArgs(`dsh resume {session} --prompt "{prompt}"`)).toEqual(['dsh', 'resume', '{session}', '--prompt', '{prompt}']);
    expect(splitArgs(`notify-send 'Logbook reminder' {prompt}`)).toEqual(['notify-send', 'Logbook reminder', '{prompt}']);
    expect(splitArgs(`a\\ b "" c`)).toEqual(['a b', '', 'c']);
    expect(splitArgs('   ')).toEqual([]);
  });

  it('round-trips through joinArgs', () => {
    for (const argv of [['dsh', 'run', '{prompt}'], ['say', "it's 5 o'clock", ''], ['x', '$(rm -rf /)', 'a"b']]) {
      expect(splitArgs(joinArgs(argv))).toEqual(argv);
    }
  });
});

describe('demo schedules', () => {
  it('are listed apart, say they never fire, and offer no action', () => {
    for (const st of ['scheduled', 'overdue', 'paused'] as const) {
      const it_ = item({ logbook_state: st, demo: true });
      expect(sectionOf(it_)).toBe('demo');
      expect(stateLabel(it_)).toBe(DEMO_LABEL);
      expect(actionsFor(it_)).toEqual([]);
    }
    const g = groupSchedules([item({ demo: true }), item({ id: 'schedule-2' })]);
    expect(g.demo).toHaveLength(1);
    expect(g.upcoming).toHaveLength(1);
  });
});

describe('fireTarget', () => {
  it('names what Fire now runs', () => {
    expect(fireTarget({ action: 'command', command: ['notify-send', 'a b'], webhook_url: '' })).toBe("run notify-send 'a b'");
    expect(fireTarget({ action: 'webhook', command: [], webhook_url: 'https://h.example/x' })).toBe('POST to https://h.example/x');
    expect(fireTarget({ action: 'notify', command: [], webhook_url: '' })).toBeNull();
    expect(fireTarget(null)).toBeNull();
  });
});
