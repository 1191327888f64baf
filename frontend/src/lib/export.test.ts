import { describe, expect, it } from 'vitest';
import type { RedactFinding } from '../api/types';
import { accepted, acceptedCount, decisions, download, groupFindings, manyTitle, partOptions, setCategory, setFinding, type Choices } from './export';

function f(id: string, category: string): RedactFinding {
  return { id, doc: '3/text', category, rule: category, start: 0, end: 1, line: 1, masked: 'x…', preview: 'x…', fingerprint: id };
}

describe('export choices', () => {
  const all = [f('a', 'host'), f('b', 'token'), f('c', 'host'), f('d', 'email')];

  it('groups findings in category order', () => {
    expect(groupFindings(all).map((g) => [g.category, g.findings.map((x) => x.id)])).toEqual([
      ['token', ['b']],
      ['email', ['d']],
      ['host', ['a', 'c']],
    ]);
  });

  it('redacts everything by default, a finding overrides its category', () => {
    let c: Choices = { categories: {}, findings: {} };
    expect(acceptedCount(c, all)).toBe(4);
    const hosts = groupFindings(all)[2];
    c = setCategory(c, hosts, false);
    expect(acceptedCount(c, all)).toBe(2);
    c = setFinding(c, all[0], true);
    expect(accepted(c, all[0])).toBe(true);
    expect(accepted(c, all[2])).toBe(false);
    expect(decisions(c)).toEqual({ categories: { host: false }, findings: { a: true } });
    // Switching the category again drops its findings' own choices.
    c = setCategory(c, hosts, true);
    expect(decisions(c)).toEqual({ categories: { host: true }, findings: {} });
  });
});

describe('export part', () => {
  const base = { kind: 'whole' as const, from: '', to: '', seq: null, context: 1 };

  it('is the whole session by default', () => {
    expect(partOptions(base)).toEqual({});
  });

  it('turns a range into A-B, open ends kept open', () => {
    expect(partOptions({ ...base, kind: 'turns', from: '2', to: '4' })).toEqual({ turns: '2-4' });
    expect(partOptions({ ...base, kind: 'turns', from: ' 3 ', to: '3' })).toEqual({ turns: '3' });
    expect(partOptions({ ...base, kind: 'turns', from: '5', to: '' })).toEqual({ turns: '5-' });
    expect(partOptions({ ...base, kind: 'turns', from: '', to: '2' })).toEqual({ turns: '-2' });
  });

  it('refuses what cannot be exported', () => {
    expect(partOptions({ ...base, kind: 'turns' })).toBeNull();
    expect(partOptions({ ...base, kind: 'turns', from: 'a', to: '2' })).toBeNull();
    expect(partOptions({ ...base, kind: 'turns', from: '4', to: '2' })).toBeNull();
    expect(partOptions({ ...base, kind: 'around' })).toBeNull();
  });

  it('exports the turns around the opened item', () => {
    expect(partOptions({ ...base, kind: 'around', seq: 812, context: 2 })).toEqual({ around: 812, context: 2 });
    expect(partOptions({ ...base, kind: 'around', seq: 0, context: -3 })).toEqual({ around: 0, context: 0 });
  });
});

describe('export download', () => {
  it('follows the one-time URL with a link named after the file', () => {
    const clicked: { href: string; download: string }[] = [];
    const body = { appendChild: () => {} };
    const doc = {
      body,
      createElement: () => {
        const a = { href: '', download: '', rel: '', click: () => clicked.push({ href: a.href, download: a.download }), remove: () => {} };
        return a;
      },
    } as unknown as Document;
    download({ name: 'a.logbook', mime: 'application/zip', download: 'api/download/ab?key=cd', bytes: 6 }, doc);
    expect(clicked).toEqual([{ href: 'api/download/ab?key=cd', download: 'a.logbook' }]);
  });

  it('refuses an export without a download URL', () => {
    expect(() => download({ name: 'a.md', mime: 'text/markdown', bytes: 1 }, {} as Document)).toThrow();
  });

  it('titles a bundle of a search by its sessions', () => {
    expect(manyTitle(null)).toBe('Export the sessions of this search');
    expect(manyTitle(1)).toBe('Export 1 session');
    expect(manyTitle(137)).toBe('Export 137 sessions');
  });
});
