import { afterEach, describe, expect, it } from 'vitest';
import { linkMessage, linkState, onLinkState, setLinkState, stateOfStatus, type LinkState } from './connection';

afterEach(() => setLinkState('ok'));

describe('link state', () => {
  it('notifies on changes only, with the previous state', () => {
    const seen: [LinkState, LinkState][] = [];
    const off = onLinkState((s, prev) => seen.push([s, prev]));
    setLinkState('ok');
    setLinkState('down');
    setLinkState('down');
    setLinkState('signed-out');
    setLinkState('ok');
    off();
    setLinkState('down');
    expect(seen).toEqual([
      ['down', 'ok'],
      ['signed-out', 'down'],
      ['ok', 'signed-out'],
    ]);
    expect(linkState()).toBe('down');
  });
  it('reads HTTP answers: 401 is a stale token, anything else means Logbook is up', () => {
    expect(stateOfStatus(401)).toBe('signed-out');
    expect(stateOfStatus(200)).toBe('ok');
    expect(stateOfStatus(500)).toBe('ok');
    expect(stateOfStatus(422)).toBe('ok');
  });
  it('has words for every bad state and none for ok', () => {
    expect(linkMessage('ok')).toBe('');
    expect(linkMessage('down')).toMatch(/Retrying/);
    expect(linkMessage('signed-out')).toMatch(/Open the link logbook serve printed/);
  });
});
