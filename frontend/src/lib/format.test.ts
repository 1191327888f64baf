import { describe, expect, it } from 'vitest';
import { agentLabel, stripAnsi } from './format';

describe('stripAnsi', () => {
  it('removes colour codes and keeps the text', () => {
    expect(stripAnsi('\x1b[31mFAIL\x1b[0m ok')).toBe('FAIL ok');
    expect(stripAnsi('\x1b[1;32m✓\x1b[39;49m passed')).toBe('✓ passed');
  });
  it('removes cursor moves, OSC titles and hyperlinks', () => {
    expect(stripAnsi('a\x1b[2K\x1b[1Gb')).toBe('ab');
    expect(stripAnsi('\x1b]0;title\x07text')).toBe('text');
    expect(stripAnsi('\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\')).toBe('link');
    expect(stripAnsi('\x1b(Bplain')).toBe('plain');
  });
  it('returns text without escapes unchanged (same string)', () => {
    const s = '写入权限 [31m is not an escape';
    expect(stripAnsi(s)).toBe(s);
    expect(stripAnsi('')).toBe('');
  });
});

describe('agentLabel', () => {
  it('names the known agents and passes others through', () => {
    expect(agentLabel('openhands')).toBe('OpenHands');
    expect(agentLabel('dsh')).toBe('dsh');
    expect(agentLabel('other')).toBe('other');
    expect(agentLabel(undefined)).toBe('');
  });
});
