import { describe, expect, it } from 'vitest';
import { forget, recall, remember } from './memory';

describe('view memory', () => {
  it('gives back what a view left, per view, until forgotten', () => {
    expect(recall('approvals')).toBeUndefined();
    remember('approvals', { outcome: 'rejected', scroll: 420 });
    remember('compactions', { kind: 'prune' });
    expect(recall<{ outcome: string; scroll: number }>('approvals')).toEqual({ outcome: 'rejected', scroll: 420 });
    expect(recall('compactions')).toEqual({ kind: 'prune' });
    forget('approvals');
    expect(recall('approvals')).toBeUndefined();
  });
});
