import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import ShortcutSheet from '../components/ShortcutSheet.svelte';
import { GO_TO, SHORTCUTS, keyLabel, sheet, shortcutFor, startsSequence } from './shortcuts';

describe('the ? sheet', () => {
  // Svelte's server render marks its blocks with comments and scopes classes; the
  // text is what a reader sees.
  const html = render(ShortcutSheet, { props: {} }).body.replace(/<!--.*?-->/g, '').replace(/ class="[^"]*"/g, '');
  const kbds = [...html.matchAll(/<kbd>([^<]*)<\/kbd>/g)].map((m) => m[1]);

  it('lists every registered key, global ones included', () => {
    for (const s of SHORTCUTS) {
      for (const seq of s.keys) {
        for (const k of seq) expect(kbds, `${s.scope} ${s.id}: ${k}`).toContain(keyLabel(k));
      }
    }
    // Every "g then" view, with its key in sequence.
    for (const g of GO_TO.filter((x) => x.key !== '/')) {
      expect(html).toMatch(new RegExp(`<kbd>g</kbd>.*?then.*?<kbd>${g.key}</kbd>.*?go to ${g.label}`, 's'));
    }
  });

  it('has one line per described shortcut, in every scope', () => {
    const lines = sheet().flatMap((s) => s.lines);
    expect(lines.length).toBe(SHORTCUTS.filter((s) => s.does).length);
    for (const s of sheet()) expect(html).toContain(s.title);
  });
});

describe('the registry', () => {
  it('finds each shortcut by its keys and has no key twice in a scope', () => {
    for (const s of SHORTCUTS) {
      for (const seq of s.keys) expect(shortcutFor(s.scope, seq)?.id).toBe(s.id);
    }
    const seen = new Set<string>();
    for (const s of SHORTCUTS) {
      for (const seq of s.keys) {
        const k = s.scope + ':' + seq.join(' ');
        expect(seen.has(k), k).toBe(false);
        seen.add(k);
      }
    }
  });

  it('knows g starts a sequence', () => {
    expect(startsSequence('global', 'g')).toBe(true);
    expect(startsSequence('global', 't')).toBe(false);
    expect(shortcutFor('global', ['g', 'p'])?.id).toBe('go:schedules');
  });
});
