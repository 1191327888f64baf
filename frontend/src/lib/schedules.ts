// The logic of the schedules view, kept apart from the components so it is tested
// without a browser: which section a schedule belongs in, what it may be asked to
// do, and how its times read. Instants arrive as RFC 3339 UTC strings; everything
// shown is local time.
import type { ScheduleAction, ScheduleFire, ScheduleItem, SchedulerConfig } from '../api/types';

export type Section = 'upcoming' | 'overdue' | 'paused' | 'completed' | 'deleted' | 'demo';

export const SECTIONS: { key: Section; title: string; hint: string }[] = [
  { key: 'overdue', title: 'Overdue', hint: 'Their time passed while Logbook was closed or they were held back.' },
  { key: 'upcoming', title: 'Upcoming', hint: 'Armed: Logbook fires them at their next time.' },
  { key: 'paused', title: 'Paused', hint: 'Held in Logbook until you resume them.' },
  { key: 'completed', title: 'Completed', hint: 'Fired, dismissed, or finished in their session.' },
  { key: 'deleted', title: 'Deleted in session', hint: 'The agent removed them; Logbook never fires them.' },
  { key: 'demo', title: 'Demo', hint: 'Scheduled prompts of the demo archive: shown, never fired.' },
];

/** The state badge of a demo schedule. */
export const DEMO_LABEL = 'demo — never fires';

/** The section of the view a schedule is listed in. */
export function sectionOf(it: ScheduleItem): Section {
  if (it.demo) return 'demo';
  switch (it.logbook_state) {
    case 'scheduled':
      return 'upcoming';
    case 'overdue':
      return 'overdue';
    case 'paused':
      return 'paused';
    case 'deleted':
      return 'deleted';
    default:
      return 'completed'; // fired, dismissed, completed
  }
}

const ms = (iso: string | null | undefined): number => (iso ? new Date(iso).getTime() : NaN);

/** When a schedule last did something, for ordering the finished ones. */
export function lastActivity(it: ScheduleItem): number {
  const t = [ms(it.last_fire?.fired_at), ms(it.last_accepted_at), ms(it.scheduled_at), ms(it.created_at)].filter((x) => !isNaN(x));
  return t.length ? Math.max(...t) : 0;
}

/** Groups schedules into the view's sections, each in the order a reader wants. */
export function groupSchedules(items: readonly ScheduleItem[]): Record<Section, ScheduleItem[]> {
  const g: Record<Section, ScheduleItem[]> = { upcoming: [], overdue: [], paused: [], completed: [], deleted: [], demo: [] };
  for (const it of items) g[sectionOf(it)].push(it);
  const next = (it: ScheduleItem) => ms(it.logbook_next_fire ?? it.scheduled_at);
  const tie = (a: ScheduleItem, b: ScheduleItem) =>
    a.session_id.localeCompare(b.session_id) || a.created_seq - b.created_seq;
  g.upcoming.sort((a, b) => next(a) - next(b) || tie(a, b));
  g.overdue.sort((a, b) => next(a) - next(b) || tie(a, b));
  g.paused.sort((a, b) => ms(a.scheduled_at) - ms(b.scheduled_at) || tie(a, b));
  g.completed.sort((a, b) => lastActivity(b) - lastActivity(a) || tie(a, b));
  g.deleted.sort((a, b) => ms(b.created_at) - ms(a.created_at) || tie(a, b));
  g.demo.sort((a, b) => ms(a.scheduled_at) - ms(b.scheduled_at) || tie(a, b));
  return g;
}

/** True when Logbook asked the user about this overdue fire and waits for an answer. */
export function awaitingAnswer(it: ScheduleItem): boolean {
  const f = it.last_fire;
  return it.logbook_state === 'overdue' && f?.outcome === 'asked' && ms(f.target_at) === ms(it.logbook_next_fire);
}

/** The buttons a schedule offers, in display order. */
export function actionsFor(it: ScheduleItem): ScheduleAction[] {
  if (it.demo) return []; // the scheduler never fires a demo's schedules
  switch (it.logbook_state) {
    case 'scheduled':
      return ['fire', 'snooze', 'skip', 'pause', 'dismiss'];
    case 'overdue':
      return ['fire', 'snooze', 'skip', 'pause', 'dismiss'];
    case 'paused':
      return ['resume', 'fire', 'dismiss'];
    case 'dismissed':
      return ['resume'];
    case 'fired':
      return ['fire']; // again, by hand
    default:
      return []; // ended in its session: nothing left to do
  }
}

export const ACTION_LABELS: Record<ScheduleAction, string> = {
  fire: 'Fire now', snooze: 'Snooze', skip: 'Skip', pause: 'Pause', resume: 'Resume', dismiss: 'Dismiss',
};

export const ACTION_TITLES: Record<ScheduleAction, string> = {
  fire: 'Run the configured action now',
  snooze: 'Hold it back for a while',
  skip: 'Pass over this time without running anything; an every schedule moves on to its next time',
  pause: 'Do not fire until resumed',
  resume: 'Arm it again (an overdue time is then caught up)',
  dismiss: 'Never fire it again in Logbook (the session log is not changed)',
};

export const SNOOZE_PRESETS: { label: string; minutes: number }[] = [
  { label: '10 minutes', minutes: 10 },
  { label: '1 hour', minutes: 60 },
  { label: '4 hours', minutes: 240 },
  { label: '1 day', minutes: 24 * 60 },
];

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A live countdown to (or time since) an instant: "in 4s", "in 12m 05s", "in 3h 20m",
 * "in 2d 4h"; past instants read "5m ago".
 */
export function countdown(iso: string | null | undefined, now: number): string {
  const t = ms(iso);
  if (isNaN(t)) return '';
  const d = Math.round((t - now) / 1000);
  const a = Math.abs(d);
  let s: string;
  if (a < 60) s = `${a}s`;
  else if (a < 3600) s = `${Math.floor(a / 60)}m ${pad(a % 60)}s`;
  else if (a < 86400) s = `${Math.floor(a / 3600)}h ${pad(Math.floor((a % 3600) / 60))}m`;
  else s = `${Math.floor(a / 86400)}d ${Math.floor((a % 86400) / 3600)}h`;
  return d >= 0 ? 'in ' + s : s + ' ago';
}

/** A number of seconds as the short interval people write: "5 min", "1 h 30 min", "2 d". */
export function intervalLabel(seconds: number): string {
  if (seconds % 86400 === 0) return `${seconds / 86400} d`;
  if (seconds >= 3600) {
    const h = Math.floor(seconds / 3600);
    const m = Math.round((seconds % 3600) / 60);
    return m ? `${h} h ${m} min` : `${h} h`;
  }
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** "at", "after 5 min" or "every 1 h". */
export function kindLabel(it: ScheduleItem): string {
  if (it.kind === 'every' && it.every_seconds) return 'every ' + intervalLabel(it.every_seconds);
  if (it.kind === 'after' && it.after_seconds) return 'after ' + intervalLabel(it.after_seconds);
  return it.kind;
}

/** The state as words, with what Logbook is doing about it. */
export function stateLabel(it: ScheduleItem): string {
  if (it.demo) return DEMO_LABEL;
  switch (it.logbook_state) {
    case 'scheduled':
      return it.snoozed_until && ms(it.snoozed_until) === ms(it.logbook_next_fire) ? 'snoozed' : 'upcoming';
    case 'overdue':
      return awaitingAnswer(it) ? 'waiting for you' : 'overdue';
    case 'fired':
      return 'fired';
    case 'completed':
      return it.state === 'completed' ? 'completed in session' : 'completed';
    default:
      return it.logbook_state;
  }
}

/** The badge tone of a state (a class of styles/app.css .badge). */
export function stateTone(it: ScheduleItem): string {
  if (it.demo) return 'shadowed';
  switch (it.logbook_state) {
    case 'scheduled':
      return 'ok';
    case 'overdue':
      return 'warn';
    case 'paused':
      return 'shadowed';
    case 'deleted':
    case 'dismissed':
      return 'gone';
    default:
      return '';
  }
}

export const TRIGGER_LABELS: Record<ScheduleFire['trigger'], string> = {
  scheduled: 'on time', 'catch-up': 'as catch-up', manual: 'by hand',
};

export const OUTCOME_LABELS: Record<ScheduleFire['outcome'], string> = {
  ok: 'fired', failed: 'failed', skipped: 'skipped', asked: 'asked you',
};

export function outcomeTone(o: ScheduleFire['outcome']): string {
  return o === 'ok' ? 'ok' : o === 'failed' ? 'err' : o === 'asked' ? 'warn' : '';
}

/** One line about a fire: "fired on time via notify", "failed as catch-up via webhook after 3 attempts". */
export function fireSummary(f: ScheduleFire): string {
  const how = f.action && f.action !== 'none' ? ` via ${f.action}` : '';
  switch (f.outcome) {
    case 'asked':
      return 'asked you about a missed time';
    case 'skipped':
      return f.trigger === 'catch-up' ? 'skipped a missed time' : `skipped ${TRIGGER_LABELS[f.trigger]}`;
    case 'failed':
      return `failed ${TRIGGER_LABELS[f.trigger]}${how} after ${f.attempts} attempt${f.attempts === 1 ? '' : 's'}`;
    default:
      return `fired ${TRIGGER_LABELS[f.trigger]}${how}`;
  }
}

/**
 * What Fire now will run, for the confirm step: the command line or the webhook URL
 * of the scheduler's configuration; null for the notify action, which runs nothing.
 */
export function fireTarget(c: Pick<SchedulerConfig, 'action' | 'command' | 'webhook_url'> | null): string | null {
  if (!c) return null;
  if (c.action === 'command') return 'run ' + (c.command?.length ? joinArgs(c.command) : '(no command set)');
  if (c.action === 'webhook') return 'POST to ' + (c.webhook_url || '(no URL set)');
  return null;
}

/** The time zone the browser shows local times in, e.g. "Europe/Berlin". */
export function localZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
  } catch {
    return 'local time';
  }
}

/** Splits a command line typed in the settings into argv: whitespace separates,
 * "double" or 'single' quotes group, a backslash escapes the next character. It is
 * only how the settings form reads what was typed: the scheduler never runs a shell. */
export function splitArgs(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) out.push(cur);
  return out;
}

/** The inverse of splitArgs, for showing a stored argv in the form. */
export function joinArgs(argv: readonly string[]): string {
  return argv.map((a) => (a !== '' && /^[\w@%+=:,./{}-]+$/.test(a) ? a : "'" + a.replace(/'/g, "'\"'\"'") + "'")).join(' ');
}
