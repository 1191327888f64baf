import { describe, expect, it } from 'vitest';
import type { FileEdit } from '../api/types';
import { applyInsert, applyReplace, countFiles, summarizeFiles } from './fileedits';

function edit(e: Partial<FileEdit>): FileEdit {
  return { seq: 1, call_id: 'c', tool: 'edit', path: '/a.go', op: 'replace', new: '', failed: false, pending: false, turn: 1, ...e } as FileEdit;
}

describe('summarizeFiles', () => {
  it('reconstructs a write with edits applied on top, counting lines', () => {
    const files = summarizeFiles([
      edit({ seq: 10, op: 'write', new: 'package a\n\nfunc F() int {\n\treturn 1\n}\n' }),
      edit({ seq: 20, op: 'replace', old: '\treturn 1', new: '\treturn 2' }),
      edit({ seq: 30, op: 'insert', insert_line: 1, new: '// F returns two.' }),
      edit({ seq: 40, op: 'replace', old: 'nope', new: 'x', failed: true }),
    ]);
    expect(files).toHaveLength(1);
    const f = files[0];
    expect(f.final).toBe('package a\n// F returns two.\n\nfunc F() int {\n\treturn 2\n}\n');
    expect(f.unknown).toBe('');
    expect(f.edits.map((e) => [e.seq, e.added, e.removed, e.failed])).toEqual([
      [10, 5, 0, false],
      [20, 1, 1, false],
      [30, 1, 0, false],
      [40, 0, 0, true],
    ]);
    expect([f.added, f.removed]).toEqual([7, 1]);
  });

  it('cannot know the content of a file only edited, but still counts', () => {
    const [f] = summarizeFiles([edit({ op: 'replace', old: 'a\nb\nc', new: 'a\nB\nc' })]);
    expect(f.final).toBeNull();
    expect(f.unknown).toMatch(/no write/);
    expect([f.added, f.removed]).toEqual([1, 1]);
  });

  it('loses the content when an edit does not apply, and says which', () => {
    const [f] = summarizeFiles([edit({ seq: 1, op: 'write', new: 'x\n' }), edit({ seq: 2, op: 'replace', old: 'y', new: 'z' })]);
    expect(f.final).toBeNull();
    expect(f.unknown).toMatch(/seq 2/);
  });

  it('counts a rewrite against the previous content, and groups paths in first-edit order', () => {
    const files = summarizeFiles([
      edit({ seq: 5, path: '/b.txt', op: 'write', new: 'one\n' }),
      edit({ seq: 1, path: '/a.txt', op: 'write', new: 'a\nb\nc\n' }),
      edit({ seq: 9, path: '/a.txt', op: 'write', new: 'a\nB\nc\n' }),
    ]);
    expect(files.map((f) => f.path)).toEqual(['/a.txt', '/b.txt']);
    expect(files[0].edits.map((e) => [e.added, e.removed])).toEqual([
      [3, 0],
      [1, 1],
    ]);
    expect(files[0].final).toBe('a\nB\nc\n');
  });

  it('treats Windows paths case-insensitively', () => {
    const files = summarizeFiles([edit({ path: 'G:\\x\\A.txt', op: 'write', new: 'a' }), edit({ seq: 2, path: 'g:/x/a.txt', op: 'replace', old: 'a', new: 'b' })]);
    expect(files).toHaveLength(1);
    expect(files[0].final).toBe('b');
  });
});

describe('apply', () => {
  it('replaces once or all', () => {
    expect(applyReplace('a a a', 'a', 'b', false)).toBe('b a a');
    expect(applyReplace('a a a', 'a', 'b', true)).toBe('b b b');
    expect(applyReplace('a', '', 'b', false)).toBeNull();
  });
  it('inserts after a line, keeping the final newline', () => {
    expect(applyInsert('a\nb\n', 0, 'x')).toBe('x\na\nb\n');
    expect(applyInsert('a\nb\n', 2, 'x\ny')).toBe('a\nb\nx\ny\n');
    expect(applyInsert('a\nb\n', 3, 'x')).toBeNull();
  });
});

describe('countFiles', () => {
  it('counts the files summarizeFiles lists, without reconstructing them', () => {
    const es = [
      edit({ path: 'C:\\src\\A.go' }),
      edit({ path: 'c:/src/a.go', seq: 2 }),
      edit({ path: '/b.go', seq: 3 }),
      edit({ path: '', seq: 4 }),
    ];
    expect(countFiles(es)).toBe(summarizeFiles(es).length);
    expect(countFiles(es)).toBe(2);
  });
});

describe('undo and patches', () => {
  it('undo_edit brings back the content before the last edit, twice in a row', () => {
    const [f] = summarizeFiles([
      edit({ seq: 1, op: 'write', new: 'a\nb\n' }),
      edit({ seq: 2, op: 'replace', old: 'b', new: 'c' }),
      edit({ seq: 3, op: 'replace', old: 'a', new: 'z' }),
      edit({ seq: 4, op: 'undo' }),
    ]);
    expect(f.final).toBe('a\nc\n');
    expect(f.edits[3]).toMatchObject({ op: 'undo', added: 1, removed: 1, lost: '' });
    const [g] = summarizeFiles([
      edit({ seq: 1, op: 'write', new: 'a\n' }),
      edit({ seq: 2, op: 'replace', old: 'a', new: 'b' }),
      edit({ seq: 3, op: 'undo' }),
      edit({ seq: 4, op: 'undo' }),
    ]);
    // The second undo reverts the write: what was there before it, the log does not say.
    expect(g.final).toBeNull();
    expect(g.unknown).toMatch(/not known/);
  });
  it('an undo with nothing before it in the log leaves the content unknown', () => {
    const [f] = summarizeFiles([edit({ seq: 1, op: 'undo' })]);
    expect(f.final).toBeNull();
    expect(f.unknown).toMatch(/no earlier edit/);
  });
  it('a failed edit is not what an undo reverts', () => {
    const [f] = summarizeFiles([
      edit({ seq: 1, op: 'write', new: 'a\n' }),
      edit({ seq: 2, op: 'replace', old: 'a', new: 'b' }),
      edit({ seq: 3, op: 'replace', old: 'b', new: 'c', failed: true }),
      edit({ seq: 4, op: 'undo' }),
    ]);
    expect(f.final).toBe('a\n');
  });
  it('a patch deletes a file', () => {
    const [f] = summarizeFiles([edit({ seq: 1, op: 'write', new: 'a\nb\n' }), edit({ seq: 2, op: 'delete' })]);
    expect(f.final).toBeNull();
    expect(f.unknown).toMatch(/deleted/);
    expect(f.removed).toBe(2);
  });
});
