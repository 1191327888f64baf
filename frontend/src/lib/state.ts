// The session-state panel's view model: what was in force just after one event,
// in the order a person reads it (api.sessionState returns one entry per type).
import type { FoldedSchedule, SessionState, StateEntry, TodoItem } from '../api/types';

export interface StateRow {
  key: string; // the event type
  label: string; // "Sandbox"
  value: string; // "workspace-write"
  seq: number; // where it was set, to jump there
}

export interface StateView {
  todos: TodoItem[] | null;
  todosSeq: number | null;
  rows: StateRow[];
  active: FoldedSchedule[];
  ended: number;
}

const ORDER: [string, string][] = [
  ['goal/change', 'Goal'],
  ['plan/mode', 'Plan mode'],
  ['permission/preset', 'Permissions'],
  ['sandbox/mode', 'Sandbox'],
  ['approval/policy', 'Approval policy'],
  ['model/selection', 'Model'],
  ['agent-preset/selected', 'Agent preset'],
  ['session/title', 'Title'],
];

/** valueOf turns a marker label like "sandbox: workspace-write" into its value. */
export function valueOf(e: StateEntry): string {
  const label = e.marker?.label ?? e.type;
  if (e.type === 'plan/mode') return /on$/.test(label) ? 'on' : /off$/.test(label) ? 'off' : label;
  const i = label.indexOf(': ');
  const v = i >= 0 ? label.slice(i + 2) : label;
  if (e.type === 'model/selection') {
    const effort = e.marker?.fields?.find((f) => f.name === 'reasoning effort')?.value;
    return effort ? `${v} · ${effort} effort` : v;
  }
  if (e.type === 'goal/change' && e.marker?.detail) return e.marker.detail;
  return v;
}

export function stateView(st: SessionState | null): StateView {
  const view: StateView = { todos: null, todosSeq: null, rows: [], active: [], ended: 0 };
  if (!st) return view;
  const byType = new Map(st.entries.map((e) => [e.type, e]));
  const todo = byType.get('todo/write');
  if (todo) {
    view.todos = todo.marker?.todos ?? [];
    view.todosSeq = todo.seq;
  }
  for (const [type, label] of ORDER) {
    const e = byType.get(type);
    if (e) view.rows.push({ key: type, label, value: valueOf(e), seq: e.seq });
  }
  for (const s of st.schedules) {
    if (s.status === 'active') view.active.push(s);
    else view.ended++;
  }
  view.active.sort((a, b) => Date.parse(a.scheduledAt) - Date.parse(b.scheduledAt));
  return view;
}

/** scheduleCadence says when a folded schedule fires, e.g. "every 10 min". */
export function scheduleCadence(s: FoldedSchedule): string {
  const span = (sec: number) =>
    sec % 86400 === 0 ? `${sec / 86400} d` : sec % 3600 === 0 ? `${sec / 3600} h` : sec % 60 === 0 ? `${sec / 60} min` : `${sec} s`;
  if (s.kind === 'every' && s.everySeconds) return `every ${span(s.everySeconds)}`;
  if (s.kind === 'after' && s.afterSeconds) return `once, ${span(s.afterSeconds)} after it was set`;
  return 'once';
}
