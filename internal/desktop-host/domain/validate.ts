import { cutText } from '../../shared/unicode.js';
import { invalid } from '../../contract/desktop-bridge/errors.js';
import type { Meta, Route, Selector } from '../../contract/desktop-bridge/types.js';

/** Field validation: every failure is DESKTOP_INVALID_REQUEST naming the field, what it got and what is expected. */

const MAX_TIMEOUT_MS = 10 * 60_000;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const shown = (v: unknown): string => (v === undefined ? 'nothing' : cutText(JSON.stringify(v) ?? String(v), 80));
const fail = (field: string, want: string, got: unknown): never => {
  throw invalid(`${field} must be ${want} (got ${shown(got)})`, { field });
};

export function objectAt(v: unknown, field: string): Obj {
  return isObj(v) ? v : fail(field, 'an object', v);
}

export function optionalObject(v: unknown, field: string): Obj | undefined {
  return v === undefined ? undefined : objectAt(v, field);
}

export function stringAt(v: unknown, field: string): string {
  return typeof v === 'string' && v !== '' ? v : fail(field, 'a non-empty string', v);
}

export function optionalString(v: unknown, field: string): string | undefined {
  return v === undefined ? undefined : typeof v === 'string' ? v : fail(field, 'a string', v);
}

export function intAt(v: unknown, field: string, min: number, max: number): number {
  return Number.isInteger(v) && (v as number) >= min && (v as number) <= max ? (v as number) : fail(field, `an integer ${min}–${max}`, v);
}

export function optionalInt(v: unknown, field: string, min: number, max: number): number | undefined {
  return v === undefined ? undefined : intAt(v, field, min, max);
}

export function optionalBool(v: unknown, field: string): boolean | undefined {
  return v === undefined ? undefined : typeof v === 'boolean' ? v : fail(field, 'true or false', v);
}

/** meta is required on every call (contract 4.1). */
export function parseMeta(params: Obj): Meta {
  const m = objectAt(params.meta, 'params.meta');
  if (m.schemaVersion !== 1) fail('params.meta.schemaVersion', '1 (the only schema this host speaks)', m.schemaVersion);
  const requestId = stringAt(m.requestId, 'params.meta.requestId');
  const workspacePath = stringAt(m.workspacePath, 'params.meta.workspacePath');
  if (!workspacePath.startsWith('/')) fail('params.meta.workspacePath', 'an absolute path', workspacePath);
  const timeoutMs = intAt(m.timeoutMs, 'params.meta.timeoutMs', 1, MAX_TIMEOUT_MS);
  return { schemaVersion: 1, requestId, workspacePath, timeoutMs };
}

export function parseSelector(v: unknown, field: string): Selector {
  const s = objectAt(v, field);
  const sel: Selector = {
    byRole: optionalString(s.byRole, `${field}.byRole`),
    titleContains: optionalString(s.titleContains, `${field}.titleContains`),
    valueContains: optionalString(s.valueContains, `${field}.valueContains`),
    limit: optionalInt(s.limit, `${field}.limit`, 1, 1000),
  };
  if (sel.byRole === undefined && sel.titleContains === undefined && sel.valueContains === undefined)
    fail(field, 'a selector with at least one of byRole, titleContains, valueContains', v);
  return sel;
}

export function parseRoute(v: unknown): Route | undefined {
  const r = optionalObject(v, 'params.route');
  if (!r) return undefined;
  const app = optionalObject(r.app, 'params.route.app');
  const win = optionalObject(r.window, 'params.route.window');
  const route: Route = { focusPolicy: optionalString(r.focusPolicy, 'params.route.focusPolicy') };
  if (app)
    route.app = {
      name: optionalString(app.name, 'params.route.app.name'),
      pid: optionalInt(app.pid, 'params.route.app.pid', 1, 2 ** 31),
      bundleId: optionalString(app.bundleId, 'params.route.app.bundleId'),
    };
  if (win) {
    const titlePattern = optionalString(win.titlePattern, 'params.route.window.titlePattern');
    if (titlePattern !== undefined) {
      try {
        new RegExp(titlePattern);
      } catch (e) {
        fail('params.route.window.titlePattern', `a valid regular expression (${(e as Error).message})`, titlePattern);
      }
    }
    route.window = { titlePattern };
  }
  return route;
}

export interface Target {
  elementRef?: { elementId: string; fingerprint?: string };
  selector?: Selector;
}

export function parseTarget(v: unknown, required: boolean): Target | undefined {
  if (v === undefined && !required) return undefined;
  const t = objectAt(v, 'params.target');
  const out: Target = {};
  if (t.elementRef !== undefined) {
    const ref = objectAt(t.elementRef, 'params.target.elementRef');
    out.elementRef = {
      elementId: stringAt(ref.elementId, 'params.target.elementRef.elementId'),
      fingerprint: optionalString(ref.fingerprint, 'params.target.elementRef.fingerprint'),
    };
  }
  if (t.selector !== undefined) out.selector = parseSelector(t.selector, 'params.target.selector');
  if (!out.elementRef && !out.selector) fail('params.target', 'an object with elementRef or selector', v);
  return out;
}

/** Key names xdotool understands, plus the contract's macOS names (cmd → ctrl on Linux). */
/**
 * A keysym name (letters, digits, `_`: "ctrl", "k", "Return", "F5", "KP_Add", "minus", "plus") or one
 * punctuation character. Not "+" or "-" or anything holding them: "+" joins the keys of a combo for xdotool,
 * and a leading "-" would be read as one of its options ("--help" printed help and answered sent:true).
 */
const KEY_RE = /^(?:[A-Za-z0-9_]{1,32}|[.,;:'"/\\[\]=`~!@#$%^&*()])$/;

export function parseKeys(v: unknown): string[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > 8) return fail('params.keys', 'an array of 1–8 key names', v);
  return v.map((k, i) =>
    typeof k === 'string' && KEY_RE.test(k)
      ? k
      : fail(
          `params.keys[${i}]`,
          'a key name such as "ctrl", "k", "enter", "F5" or "plus" (letters, digits and _), or one punctuation character other than "+" and "-"',
          k,
        ),
  );
}
