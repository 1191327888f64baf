import { describe, expect, it } from 'vitest';
import { describeTool } from './conversation';
import { diffCounts, diffText } from './diff';

// The tool cards read OpenHands' editor calls as the edits and writes they are, so
// they get a diff and highlighted content like dsh's edit and write.
describe('describeTool for OpenHands editor calls', () => {
  it('reads create as a write with the file text', () => {
    const v = describeTool('file_editor', JSON.stringify({ command: 'create', path: '/w/a.py', file_text: 'x = 1\n' }));
    expect(v).toMatchObject({ kind: 'write', path: '/w/a.py', content: 'x = 1\n' });
  });
  it('reads str_replace as an edit whose diff is the changed line', () => {
    const v = describeTool('str_replace_editor', JSON.stringify({ command: 'str_replace', path: '/w/a.py', old_str: 'a\nb\nc', new_str: 'a\nB\nc' }));
    expect(v).toMatchObject({ kind: 'edit', path: '/w/a.py' });
    expect(diffCounts(diffText(v.oldText ?? '', v.newText ?? ''))).toEqual({ added: 1, removed: 1 });
  });
  it('reads insert as an edit that only adds', () => {
    const v = describeTool('str_replace_editor', JSON.stringify({ command: 'insert', path: '/w/a.py', insert_line: 2, new_str: 'z' }));
    expect(v.kind).toBe('edit');
    expect(diffCounts(diffText(v.oldText ?? '', v.newText ?? ''))).toEqual({ added: 1, removed: 0 });
  });
});
