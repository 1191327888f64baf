import { describe, expect, it } from 'vitest';
import type { FileStatus } from '../../api/types';
import {
  emptyFileFilter, errorSentence, trimLine, filterFiles, kindText, lastImportOf, progressFraction, sortFiles, splitPath,
  verdictCounts, where,
} from './importing';

function file(over: Partial<FileStatus>): FileStatus {
  return {
    path: '/root/p/s/session.jsonl', session_id: 's', verdict: 'ok', warnings: 0, records: 10, events: 20, size: 1000,
    compressed: false, gone: false, duplicate: false, first_seen: '2026-11-01T00:00:00Z', last_import: '2026-11-02T00:00:00Z',
    ...over,
  };
}

describe('import helpers', () => {
  it('phrases errors', () => {
    expect(errorSentence(file({ error_kind: 'bad-json', error_line: 12, error_offset: 3456, error_message: 'unexpected }' })))
      .toBe('A line is not valid JSON (line 12, byte 3,456): unexpected }');
    expect(errorSentence(file({ error_kind: 'torn-tail', error_offset: -1 }))).toBe('The last line was cut off mid-write');
    // The line is not repeated when the message starts with it.
    expect(errorSentence(file({ error_kind: 'bad-event', error_line: 22, error_offset: 5, error_message: 'line 22: bad "time"' })))
      .toBe('An event is malformed (line 22, byte 5): bad "time"');
    expect(trimLine('line 3: x', 4)).toBe('line 3: x');
    expect(errorSentence(file({}))).toBe('');
    expect(kindText('something-new')).toBe('something new');
    expect(where(0, -1, 0)).toBe('');
    expect(where(3, 0, 9)).toBe('line 3, byte 0, event 9');
  });

  it('sorts the worst first', () => {
    const fs = [
      file({ path: 'a', verdict: 'ok' }),
      file({ path: 'b', verdict: 'recovered' }),
      file({ path: 'c', verdict: 'corrupt' }),
      file({ path: 'd', verdict: 'ok', warnings: 3 }),
      file({ path: 'e', verdict: 'unsupported' }),
    ];
    expect(sortFiles(fs).map((f) => f.path)).toEqual(['c', 'e', 'b', 'd', 'a']);
    expect(sortFiles(fs, 'path').map((f) => f.path)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('filters by verdict, flag and text', () => {
    const fs = [
      file({ path: '/x/one', verdict: 'corrupt', error_message: 'bad frame' }),
      file({ path: '/x/two', gone: true }),
      file({ path: '/y/three', duplicate: true, warnings: 2 }),
    ];
    expect(filterFiles(fs, { ...emptyFileFilter(), verdict: 'corrupt' })).toHaveLength(1);
    expect(filterFiles(fs, { ...emptyFileFilter(), flag: 'gone' })[0].path).toBe('/x/two');
    expect(filterFiles(fs, { ...emptyFileFilter(), flag: 'warnings' })[0].path).toBe('/y/three');
    expect(filterFiles(fs, { ...emptyFileFilter(), text: 'FRAME' })).toHaveLength(1);
    expect(filterFiles(fs, { ...emptyFileFilter(), text: '/x/' })).toHaveLength(2);
    expect(verdictCounts(fs)).toEqual({ ok: 2, recovered: 0, corrupt: 1, unsupported: 0, failed: 0 });
  });

  it('splits paths under roots', () => {
    expect(splitPath('/home/u/.dsh/sessions/p/s/session.jsonl', ['/home/u/.dsh/sessions/'])).toEqual({
      root: '/home/u/.dsh/sessions', dir: 'p/s/', name: 'session.jsonl',
    });
    expect(splitPath('C:\\a\\b\\f.jsonl', [])).toEqual({ root: '', dir: 'C:\\a\\b\\', name: 'f.jsonl' });
    expect(splitPath('/elsewhere/f', ['/home'])).toEqual({ root: '', dir: '/elsewhere/', name: 'f' });
  });

  it('computes progress', () => {
    expect(progressFraction(null)).toBeNull();
    expect(progressFraction({ file: '', file_index: 0, files: 0, done_bytes: 0, total_bytes: 0, phase: 'import' })).toBeNull();
    expect(progressFraction({ file: 'f', file_index: 1, files: 4, done_bytes: 50, total_bytes: 200, phase: 'import' })).toBe(0.25);
    expect(progressFraction({ file: 'f', file_index: 3, files: 4, done_bytes: 0, total_bytes: 0, phase: 'index' })).toBe(0.75);
  });

  it('finds the latest import', () => {
    expect(lastImportOf([file({ last_import: '2026-01-01T00:00:00Z' }), file({ last_import: '2026-03-01T00:00:00Z' })]))
      .toBe('2026-03-01T00:00:00Z');
    expect(lastImportOf([])).toBeNull();
  });
});
