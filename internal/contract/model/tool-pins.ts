import { sha256Hex } from './naming.js';
import type { DownstreamTool } from './tool.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';

/** JSON with object keys sorted at every level (undefined members dropped): equal values, equal text. */
function canonicalJson(value: JsonValue | undefined): string {
  if (value === null || value === undefined || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const parts = Object.keys(value)
    .sort()
    .filter((k) => value[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`);
  return `{${parts.join(',')}}`;
}

/** What of a tool is pinned: what a model is told and what it may send. */
const PINNED_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

/** What is pinned of a listed item, and which field names it. Tools by default; prompts and resources in item-pins.ts. */
export interface PinShape {
  fields: readonly string[];
  key: string;
}
const TOOL_SHAPE: PinShape = { fields: PINNED_FIELDS, key: 'name' };

interface PinnedDefinition {
  /** sha256 of the pinned fields' canonical JSON. */
  hash: string;
  definition: JsonObject;
}

/** A tool the server serves now whose definition differs from the one approved. */
export interface Withheld extends PinnedDefinition {
  name: string;
  /** `renamed`: a pinned tool is gone and this new name carries its definition. */
  kind: 'changed' | 'renamed';
  /** The pinned name it replaces (renamed) — the same name when changed. */
  from: string;
  /** The approved definition. */
  before: JsonObject;
}

/** One server's pins: approved definitions by name, and what is withheld now. */
export interface ServerPins {
  tools: Record<string, PinnedDefinition>;
  withheld: Record<string, Withheld>;
}

export const emptyPins = (): ServerPins => ({ tools: {}, withheld: {} });

function pinnedDefinition(definition: JsonObject, shape: PinShape): PinnedDefinition {
  const picked: JsonObject = {};
  for (const f of shape.fields) if (definition[f] !== undefined) picked[f] = definition[f] as JsonValue;
  return { hash: sha256Hex(canonicalJson(picked)), definition: picked };
}

/** The definition without what names it: what a rename keeps. */
function bodyHash(definition: JsonObject, shape: PinShape): string {
  const body = { ...definition };
  delete body[shape.key];
  return sha256Hex(canonicalJson(body));
}

export interface PinCheck<T> {
  admitted: T[];
  /** The pins after this listing: new tools pinned on first sight, withheld ones recorded. */
  next: ServerPins;
  /** Whether `next` differs from what was given (something to write). */
  changed: boolean;
}

/**
 * Checks a server's listing against its pins. A tool seen for the first time is pinned and admitted; a
 * pinned tool with the same definition is admitted; a pinned tool whose definition changed is withheld;
 * a new name whose definition (name aside) is that of a pinned tool that is gone is a rename, withheld too
 * (hash pinning by name alone would take it for a new tool).
 */
export function checkPins<T extends Pick<DownstreamTool, 'name' | 'definition'>>(
  pins: ServerPins,
  tools: readonly T[],
  shape: PinShape = TOOL_SHAPE,
): PinCheck<T> {
  const next: ServerPins = { tools: { ...pins.tools }, withheld: {} };
  const served = new Set(tools.map((t) => t.name));
  const goneByBody = new Map<string, string>();
  for (const [name, p] of Object.entries(pins.tools)) if (!served.has(name)) goneByBody.set(bodyHash(p.definition, shape), name);
  const admitted: T[] = [];
  let pinnedNew = false;
  for (const t of tools) {
    const now = pinnedDefinition(t.definition, shape);
    const pinned = pins.tools[t.name];
    const renamedFrom = pinned ? undefined : goneByBody.get(bodyHash(now.definition, shape));
    if (pinned && pinned.hash === now.hash) admitted.push(t);
    else if (pinned) next.withheld[t.name] = { name: t.name, kind: 'changed', from: t.name, before: pinned.definition, ...now };
    else if (renamedFrom !== undefined) {
      const before = (pins.tools[renamedFrom] as PinnedDefinition).definition;
      next.withheld[t.name] = { name: t.name, kind: 'renamed', from: renamedFrom, before, ...now };
    } else {
      next.tools[t.name] = now;
      pinnedNew = true;
      admitted.push(t);
    }
  }
  // next.tools only ever gains names here, so only the withheld part needs comparing as text: the
  // approved definitions are every tool ever pinned, too many to serialise twice per listing.
  const changed =
    pinnedNew || canonicalJson(next.withheld as unknown as JsonValue) !== canonicalJson(pins.withheld as unknown as JsonValue);
  return { admitted, next, changed };
}

/** Accepts what is withheld (one tool, or all of them): a rename drops the old name's pin. Returns what was approved. */
export function approvePins(pins: ServerPins, tool?: string): { next: ServerPins; approved: string[] } {
  const next: ServerPins = { tools: { ...pins.tools }, withheld: { ...pins.withheld } };
  const approved: string[] = [];
  for (const w of Object.values(pins.withheld)) {
    if (tool !== undefined && w.name !== tool && w.from !== tool) continue;
    if (w.kind === 'renamed') delete next.tools[w.from];
    next.tools[w.name] = { hash: w.hash, definition: w.definition };
    delete next.withheld[w.name];
    approved.push(w.name);
  }
  return { next, approved };
}

/** A field-by-field diff of a withheld tool (`- field: before` / `+ field: after`), for status and `mcpdctl pins`. */
export function pinDiff(w: Withheld, shape: PinShape = TOOL_SHAPE): string[] {
  const lines: string[] = [w.kind === 'renamed' ? `renamed: ${w.from} → ${w.name} (same definition otherwise)` : `changed: ${w.name}`];
  for (const f of shape.fields) {
    const a = w.before[f];
    const b = w.definition[f];
    const at = a === undefined ? undefined : JSON.stringify(a);
    const bt = b === undefined ? undefined : JSON.stringify(b);
    if (at === bt) continue;
    if (at !== undefined) lines.push(`- ${f}: ${at}`);
    if (bt !== undefined) lines.push(`+ ${f}: ${bt}`);
  }
  return lines;
}

/** The refusal of a call to a withheld tool. */
export function withheldMessage(server: string, w: Withheld): string {
  const what =
    w.kind === 'renamed'
      ? `tool "${w.name}" of server ${server} is pinned tool "${w.from}" renamed`
      : `the definition of tool "${w.name}" of server ${server} changed`;
  return `${what} since it was approved; it is withheld until approved: see the change with "mcpdctl pins ${server}" and accept it with "mcpdctl pins approve ${server} ${w.name}"`;
}
