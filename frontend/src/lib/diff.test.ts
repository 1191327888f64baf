import { describe, expect, it } from 'vitest';
import { diffCounts, diffLines, diffText, hunks, languageOf, sideBySide, skippedAfter, splitLines } from './diff';

function block(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `line ${i + 1}`);
}

describe('diffLines', () => {
  it('finds a one-line change in a 26-line block', () => {
    const a = block(26);
    const b = [...a];
    b[12] = 'line 13 changed';
    const d = diffLines(a, b);
    expect(diffCounts(d)).toEqual({ added: 1, removed: 1 });
    expect(d.filter((l) => l.kind !== 'eq')).toEqual([
      { kind: 'del', text: 'line 13', a: 13 },
      { kind: 'add', text: 'line 13 changed', b: 13 },
    ]);
    const hs = hunks(d, 3);
    expect(hs).toHaveLength(1);
    expect(hs[0].lines.map((l) => l.kind)).toEqual(['eq', 'eq', 'eq', 'del', 'add', 'eq', 'eq', 'eq']);
    expect(hs[0]).toMatchObject({ aStart: 10, aLen: 7, bStart: 10, bLen: 7, skippedBefore: 9 });
    expect(skippedAfter(d, hs)).toBe(10);
  });

  it('is a longest common subsequence: reordered and inserted lines', () => {
    const d = diffLines(['a', 'b', 'c', 'd'], ['a', 'c', 'x', 'd', 'e']);
    expect(d.map((l) => (l.kind === 'eq' ? ' ' : l.kind === 'del' ? '-' : '+') + l.text)).toEqual([' a', '-b', ' c', '+x', ' d', '+e']);
    // Every line of each side appears once, in order.
    expect(d.filter((l) => l.kind !== 'add').map((l) => l.text)).toEqual(['a', 'b', 'c', 'd']);
    expect(d.filter((l) => l.kind !== 'del').map((l) => l.text)).toEqual(['a', 'c', 'x', 'd', 'e']);
  });

  it('handles empty sides and identical texts', () => {
    expect(diffCounts(diffText('', 'a\nb\n'))).toEqual({ added: 2, removed: 0 });
    expect(diffCounts(diffText('a\nb', ''))).toEqual({ added: 0, removed: 2 });
    expect(hunks(diffText('same\n', 'same\n'))).toEqual([]);
  });

  it('splits lines without a phantom last line and drops CR', () => {
    expect(splitLines('a\r\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('')).toEqual([]);
    expect(splitLines('\n')).toEqual(['']);
  });

  it('keeps distant changes in separate hunks and near ones together', () => {
    const a = block(40);
    const b = [...a];
    b[2] = 'x';
    b[35] = 'y';
    expect(hunks(diffLines(a, b), 3)).toHaveLength(2);
    const c = [...a];
    c[2] = 'x';
    c[7] = 'y';
    expect(hunks(diffLines(a, c), 3)).toHaveLength(1);
  });

  it('replaces a huge middle whole instead of building a huge table', () => {
    const a = Array.from({ length: 3000 }, (_, i) => `a${i}`);
    const b = Array.from({ length: 3000 }, (_, i) => `b${i}`);
    expect(diffCounts(diffLines(a, b))).toEqual({ added: 3000, removed: 3000 });
  });
});

describe('sideBySide', () => {
  it('pairs removed lines with the lines added in their place', () => {
    const rows = sideBySide(diffLines(['a', 'b', 'c'], ['a', 'B', 'B2', 'c']));
    expect(rows.map((r) => [r.left?.text ?? null, r.right?.text ?? null])).toEqual([
      ['a', 'a'],
      ['b', 'B'],
      [null, 'B2'],
      ['c', 'c'],
    ]);
  });
});

describe('languageOf', () => {
  it('maps paths to highlight.js languages', () => {
    expect(languageOf('/src/main.go')).toBe('go');
    expect(languageOf('G:\\proj\\app.TS')).toBe('typescript');
    expect(languageOf('/x/Dockerfile')).toBe('dockerfile');
    expect(languageOf('/x/notes')).toBe('');
    expect(languageOf(undefined)).toBe('');
  });
});
