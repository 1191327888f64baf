import { describe, expect, it } from 'vitest';
import { followSummary, modeDetail } from './follow';
import type { FollowRoot, FollowStatus } from '../api';

const root = (mode: string, extra: Partial<FollowRoot> = {}): FollowRoot => ({ root: '/r/' + mode, mode, folders: 3, since: '2026-12-01T15:00:00Z', ...extra });

describe('followSummary', () => {
  it('says live when every existing root is watched', () => {
    const st: FollowStatus = { on: true, roots: [root('watching'), root('missing')], writing: [] };
    expect(followSummary(st)).toMatchObject({ label: 'Live', tone: 'ok' });
  });
  it('counts files being written', () => {
    const st: FollowStatus = { on: true, roots: [root('watching')], writing: ['/a', '/b'] };
    expect(followSummary(st).label).toBe('Live · 2 being written');
  });
  it('names polled roots and why', () => {
    const st: FollowStatus = { on: true, roots: [root('watching'), root('polling', { reason: 'the inotify limit is reached' })], writing: [] };
    const s = followSummary(st);
    expect(s.tone).toBe('warn');
    expect(s.title).toContain('/r/polling: the inotify limit is reached');
  });
  it('says why follow is off', () => {
    expect(followSummary({ on: false, off: 'live follow is off (--no-follow)', roots: [], writing: [] })).toMatchObject({ tone: 'off', title: 'live follow is off (--no-follow)' });
  });
  it('has nothing to say before the first answer', () => {
    expect(followSummary(null).label).toBe('');
  });
});

describe('modeDetail', () => {
  it('explains each mode', () => {
    expect(modeDetail(root('watching', { folders: 1 }))).toContain('1 folder watched');
    expect(modeDetail(root('polling', { reason: 'it is on a network file system (nfs)' }))).toContain('network file system');
    expect(modeDetail(root('missing', { reason: 'it does not exist yet' }))).toContain('Followed once it appears');
  });
});
