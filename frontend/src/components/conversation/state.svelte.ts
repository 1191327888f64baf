// View state of one open conversation shared by its item components through context:
// which folds are open (kept by key so they survive virtualization), the focused
// item and the briefly highlighted jump target.
import { getContext, setContext } from 'svelte';
import { SvelteSet } from 'svelte/reactivity';

export class ConvUI {
  /** Open folds: `${seq}:reasoning`, `${seq}:output`, `${seq}:args`, `${seq}:open`, `${seq}:summary`. */
  open = new SvelteSet<string>();
  focused = $state<number | null>(null);
  target = $state<number | null>(null);
  /** The session's log ends mid-turn: pending tool calls at the end never got a result. */
  openTail = $state(false);

  has(k: string): boolean {
    return this.open.has(k);
  }
  toggle(k: string, on?: boolean) {
    const v = on ?? !this.open.has(k);
    if (v) this.open.add(k);
    else this.open.delete(k);
  }
}

const KEY = Symbol('conversation-ui');
export function provideUI(ui: ConvUI) {
  setContext(KEY, ui);
}
export function useUI(): ConvUI {
  return getContext<ConvUI>(KEY);
}
