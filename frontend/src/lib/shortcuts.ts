// The one registry of keyboard shortcuts. The handlers (App's global keys, the
// sessions list, the conversation) look keys up here, and the ? sheet is generated
// from it, so a key cannot work without being listed, nor be listed without working.

export type Scope = 'global' | 'sessions' | 'conversation';

export interface Shortcut {
  /** What the handler does; unique within its scope. */
  id: string;
  scope: Scope;
  /** Alternatives; each is a sequence of KeyboardEvent.key values pressed one after the other. */
  keys: string[][];
  /** What it does, as the sheet says it. */
  does: string;
}

/** The views "g" then a key goes to, in the sidebar's order. */
export const GO_TO: { view: string; key: string; label: string }[] = [
  { view: 'sessions', key: 's', label: 'Sessions' },
  { view: 'search', key: '/', label: 'Search' },
  { view: 'approvals', key: 'a', label: 'Approvals' },
  { view: 'compactions', key: 'c', label: 'Compactions' },
  { view: 'schedules', key: 'p', label: 'Schedules' },
  { view: 'usage', key: 'u', label: 'Usage' },
  { view: 'import', key: 'i', label: 'Import' },
  { view: 'settings', key: 'o', label: 'Settings' },
];

export const SHORTCUTS: Shortcut[] = [
  { id: 'search', scope: 'global', keys: [['/']], does: 'search' },
  ...GO_TO.filter((g) => g.key !== '/').map((g): Shortcut => ({
    id: 'go:' + g.view, scope: 'global', keys: [['g', g.key]], does: 'go to ' + g.label,
  })),
  { id: 'theme', scope: 'global', keys: [['t']], does: 'switch between light and dark' },

  { id: 'next', scope: 'sessions', keys: [['j'], ['ArrowDown']], does: 'next / previous session', },
  { id: 'prev', scope: 'sessions', keys: [['k'], ['ArrowUp']], does: '' },
  { id: 'open', scope: 'sessions', keys: [['Enter']], does: 'open the selected session' },
  { id: 'filter', scope: 'sessions', keys: [['f']], does: 'filter the list' },
  { id: 'first', scope: 'sessions', keys: [['Home']], does: 'first / last session' },
  { id: 'last', scope: 'sessions', keys: [['End']], does: '' },
  { id: 'fold', scope: 'sessions', keys: [['ArrowLeft']], does: 'fold the project / unfold all' },
  { id: 'unfold', scope: 'sessions', keys: [['ArrowRight']], does: '' },

  { id: 'next', scope: 'conversation', keys: [['j']], does: 'next / previous item' },
  { id: 'prev', scope: 'conversation', keys: [['k']], does: '' },
  { id: 'next-turn', scope: 'conversation', keys: [['J']], does: 'next / previous turn, its header at the top' },
  { id: 'prev-turn', scope: 'conversation', keys: [['K']], does: '' },
  { id: 'find', scope: 'conversation', keys: [['/'], ['Ctrl+f']], does: 'find in this session' },
  { id: 'next-hit', scope: 'conversation', keys: [['n']], does: 'next / previous match of the find' },
  { id: 'prev-hit', scope: 'conversation', keys: [['N']], does: '' },
  { id: 'reasoning', scope: 'conversation', keys: [['r']], does: 'reasoning of the focused item' },
  { id: 'open', scope: 'conversation', keys: [['o'], ['Enter']], does: 'open / fold the focused item' },
  { id: 'start', scope: 'conversation', keys: [['Home']], does: 'start / end of the session' },
  { id: 'end', scope: 'conversation', keys: [['End']], does: '' },
  { id: 'clear', scope: 'conversation', keys: [['Escape']], does: 'close this sheet, else clear the focus' },
  { id: 'help', scope: 'conversation', keys: [['?']], does: 'this sheet' },
];

/**
 * The shortcut of scope that the keys pressed so far complete (the last element is
 * the key just pressed), or undefined. A modifier-free single key matches a
 * one-key shortcut; ['g', 's'] matches "g then s".
 */
export function shortcutFor(scope: Scope, pressed: readonly string[]): Shortcut | undefined {
  return SHORTCUTS.find((s) => s.scope === scope && s.keys.some((k) => k.length === pressed.length && k.every((x, i) => x === pressed[i])));
}

/** Whether key starts a longer shortcut of scope (as "g" does). */
export function startsSequence(scope: Scope, key: string): boolean {
  return SHORTCUTS.some((s) => s.scope === scope && s.keys.some((k) => k.length > 1 && k[0] === key));
}

const KEY_LABELS: Record<string, string> = {
  ArrowDown: '↓', ArrowUp: '↑', ArrowLeft: '←', ArrowRight: '→', Escape: 'Esc', 'Ctrl+f': 'Ctrl+F',
};

/** How a key is written on the sheet. */
export function keyLabel(key: string): string {
  return KEY_LABELS[key] ?? key;
}

/** One line of the sheet: the keys of one or more shortcuts that share a description. */
export interface SheetLine {
  /** Each entry is one way to press it: a sequence of key labels. */
  keys: string[][];
  does: string;
}

export const SCOPE_TITLES: Record<Scope, string> = {
  global: 'Anywhere', sessions: 'Sessions list', conversation: 'Conversation',
};

/**
 * The ? sheet: a section per scope, each shortcut once; a shortcut with an empty
 * description shares the line of the one before it ("next / previous").
 */
export function sheet(scopes: readonly Scope[] = ['global', 'sessions', 'conversation']): { scope: Scope; title: string; lines: SheetLine[] }[] {
  return scopes.map((scope) => {
    const lines: SheetLine[] = [];
    for (const s of SHORTCUTS.filter((x) => x.scope === scope)) {
      const keys = s.keys.map((k) => k.map(keyLabel));
      if (!s.does && lines.length) lines[lines.length - 1].keys.push(...keys);
      else lines.push({ keys, does: s.does });
    }
    return { scope, title: SCOPE_TITLES[scope], lines };
  });
}
