// The bound Go methods, as the generated bindings name them (wailsjs/go/app/App.js,
// written by `make bindings`). Each generated function calls
// window.go.app.App.<Method>: the Wails window puts its own object there; in a
// browser (`logbook serve`) the api module puts one made by browserBindings, whose
// methods are the same names sent over HTTP (app/server.go: POST /api/<Method>).
import * as App from '../../wailsjs/go/app/App';

/** The generated binding functions, one per bound Go method. */
export type Bound = typeof App;

/** A bound method's name. A string that is not one fails `npm run check`. */
export type MethodName = keyof Bound;

/** What window.go.app.App holds: a function per bound method. */
export type BoundObject = Record<MethodName, (...args: unknown[]) => Promise<unknown>>;

/** The bound methods' names, read from the generated module itself. */
export const METHODS: readonly MethodName[] = Object.keys(App).filter(
  (k): k is MethodName => typeof (App as Record<string, unknown>)[k] === 'function',
);

/** The object for window.go.app.App in a browser: each method hands its name and
 * arguments to send (the HTTP call). */
export function browserBindings(send: (method: MethodName, args: unknown[]) => Promise<unknown>): BoundObject {
  const o = {} as BoundObject;
  for (const m of METHODS) o[m] = (...args: unknown[]) => send(m, args);
  return o;
}

interface GoWindow {
  go?: { app?: { App?: BoundObject } };
}

/** The object the generated functions call, if any (w is the page's window). */
export function boundObject(w: object): BoundObject | undefined {
  return (w as GoWindow).go?.app?.App;
}

/** Puts o where the generated functions look for it, unless something (the Wails
 * window) is there already; returns what is there afterwards. */
export function installBindings(w: object, o: BoundObject): BoundObject {
  const g = w as GoWindow;
  const go = (g.go ??= {});
  const app = (go.app ??= {});
  return (app.App ??= o);
}
