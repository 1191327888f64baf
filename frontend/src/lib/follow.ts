// Live follow as the UI shows it: one word per root's mode, and a compact
// indicator summing up every root (the sidebar's).
import type { FollowRoot, FollowStatus } from '../api';

export type Tone = 'ok' | 'warn' | 'off';

/** The words of a root's mode. */
export function modeLabel(r: FollowRoot): string {
  switch (r.mode) {
    case 'watching':
      return 'Watching';
    case 'polling':
      return 'Polling';
    case 'missing':
      return 'Missing';
  }
  return r.mode;
}

/** The tone of a root's mode: watching is live, polling is slow, a missing root is only absent. */
export function modeTone(r: FollowRoot): Tone {
  return r.mode === 'watching' ? 'ok' : r.mode === 'polling' ? 'warn' : 'off';
}

/** What a root's mode means for the person, in a sentence. */
export function modeDetail(r: FollowRoot): string {
  switch (r.mode) {
    case 'watching':
      return `New sessions show within a second (${r.folders.toLocaleString()} ${r.folders === 1 ? 'folder' : 'folders'} watched).`;
    case 'polling':
      return `Not watched: ${r.reason || 'watching is not possible'}. Looked at every 30 seconds instead.`;
    case 'missing':
      return `Not there: ${r.reason || 'it does not exist'}. Followed once it appears.`;
  }
  return r.reason ?? '';
}

/** The sidebar's indicator: one word, its tone, and a tooltip naming what is not watched. */
export function followSummary(st: FollowStatus | null): { label: string; tone: Tone; title: string } {
  if (!st) return { label: '', tone: 'off', title: '' };
  if (!st.on) return { label: 'Not following', tone: 'off', title: st.off ?? 'Live follow is off' };
  const polled = st.roots.filter((r) => r.mode === 'polling');
  const watched = st.roots.filter((r) => r.mode === 'watching');
  const writing = st.writing.length;
  const live = writing ? ` · ${writing} being written` : '';
  if (polled.length) {
    return {
      label: `Polling${live}`,
      tone: 'warn',
      title: polled.map((r) => `${r.root}: ${r.reason ?? 'not watched'}`).join('\n'),
    };
  }
  if (!watched.length) return { label: 'No folder to follow', tone: 'off', title: 'None of the session folders exists yet' };
  return {
    label: `Live${live}`,
    tone: 'ok',
    title: `Following ${watched.length} ${watched.length === 1 ? 'folder' : 'folders'} live: new sessions show within a second`,
  };
}
