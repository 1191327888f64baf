import { afterEach, describe, expect, it, vi } from 'vitest';
import { setWindowTitle, windowTitle } from './title';

describe('window title', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('puts the session title first', () => {
    expect(windowTitle('Fix the  flaky\ntest')).toBe('Fix the flaky test — Logbook');
    expect(windowTitle('')).toBe('Logbook');
    expect(windowTitle(null)).toBe('Logbook');
    expect(windowTitle('x'.repeat(200))).toHaveLength(80 + ' — Logbook'.length);
  });

  it('sets the desktop window title through the Wails runtime', () => {
    const set = vi.fn();
    vi.stubGlobal('window', { runtime: { WindowSetTitle: set } });
    vi.stubGlobal('document', { title: '' });
    setWindowTitle('A session');
    expect(set).toHaveBeenCalledWith('A session — Logbook');
    expect(document.title).toBe('A session — Logbook');
  });
});
