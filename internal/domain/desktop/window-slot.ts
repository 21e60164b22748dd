/**
 * What the desktop organizer needs to know about one collected window.
 *
 * The common window — a `{ uri }` resource (or a bare URI) with a plain, well-formed URI and an
 * array of contents — is resolved by an allocation-light fast path (`scanWindowUri`, one pass over
 * the contents). Anything else (annotations / `_meta`, unusual or invalid URIs, contents that are
 * not an array) goes through `windowFromResource`, which owns every rule and message, so both
 * paths give the same answer.
 */
import type { JsonObject, JsonValue } from '../json.js';
import { parseWindowUri, windowIdentity } from './window-uri.js';
import { SCAN_FULLSCREEN_SHIFT, SCAN_NO_PRIORITY, SCAN_SLOW, scanWindowUri } from './window-uri-scan.js';
import { renderWindow, windowFromResource } from './window-resource.js';

export interface WindowSlot {
  /** The contents object this slot was computed from (a memo hit needs the identical object). */
  readonly contents: JsonValue | undefined;
  /** Why the window is unusable (invalid URI, bad contents); undefined when usable. */
  readonly error: string | undefined;
  /** `Resource.uri` exactly as sent. */
  readonly uri: string;
  readonly priority: number;
  readonly fullscreen: boolean;
  /** The Desktop entry. */
  readonly rendered: string;
  readonly blobs: number;
  readonly unrecognized: number;
  readonly total: number;
  /** Metadata warnings of the annotations form. */
  readonly warnings: readonly string[];
  /** Filter identity, computed the first time a filter asks. */
  identity: string | undefined;
}

const NO_WARNINGS: readonly string[] = Object.freeze([]);

/**
 * Memo of the windows the fast path cannot take: the service hands the same resource and contents
 * objects to every call until a window changes, so each of those is parsed once per change, not
 * once per request. Keyed by the resource object; a hit needs the identical contents object too.
 * Weak, so dropped windows are collected; inputs must be replaced, not mutated in place.
 *
 * Fast-path windows are not memoized: scanning one costs less than inserting it into a WeakMap
 * (which dominated a request over 10,000 new windows), and about as much as a lookup.
 */
const memo = new WeakMap<object, WindowSlot>();

/** The slot of a collected window; slow-path windows come from the memo when unchanged. */
export function windowSlot(resource: JsonValue, contents: JsonValue | undefined): WindowSlot {
  const fast = fastSlot(resource, contents);
  if (fast !== undefined) return fast;
  if (typeof resource !== 'object' || resource === null) return slowSlot(resource, contents);
  const hit = memo.get(resource);
  if (hit !== undefined && hit.contents === contents) return hit;
  const slot = slowSlot(resource, contents);
  memo.set(resource, slot);
  return slot;
}

/** The window-filter identity of a usable slot (scheme, host, decoded path). */
export function slotIdentity(slot: WindowSlot): string {
  if (slot.identity === undefined) {
    const parsed = parseWindowUri(slot.uri);
    // A usable slot's URI parsed before; this cannot fail.
    slot.identity = parsed.ok ? windowIdentity(parsed.value) : '';
  }
  return slot.identity;
}

function fastSlot(resource: JsonValue, contents: JsonValue | undefined): WindowSlot | undefined {
  let uri: JsonValue | undefined;
  if (typeof resource === 'string') uri = resource;
  else if (typeof resource === 'object' && resource !== null && !Array.isArray(resource)) {
    if (resource.annotations !== undefined || resource._meta !== undefined) return undefined;
    uri = resource.uri;
  }
  if (typeof uri !== 'string') return undefined;
  if (contents !== undefined && contents !== null && !Array.isArray(contents)) return undefined;
  const packed = scanWindowUri(uri);
  if (packed === SCAN_SLOW) return undefined;
  const p = packed & 0xff;
  const items = (contents ?? []) as readonly JsonValue[];
  let body = '';
  let blobs = 0;
  let unrecognized = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (isObject(item) && typeof item.text === 'string') {
      // Empty texts are left out so they add no blank lines (renderWindow's rule).
      if (item.text !== '') body = body === '' ? item.text : `${body}\n\n${item.text}`;
    } else if (isObject(item) && typeof item.blob === 'string') blobs++;
    else unrecognized++;
  }
  return {
    contents,
    error: undefined,
    uri,
    priority: p === SCAN_NO_PRIORITY ? 0 : p,
    fullscreen: packed >> SCAN_FULLSCREEN_SHIFT === 2,
    rendered: body === '' ? uri : `${uri}\n\n${body}`,
    blobs,
    unrecognized,
    total: items.length,
    warnings: NO_WARNINGS,
    identity: undefined,
  };
}

function slowSlot(resource: JsonValue, contents: JsonValue | undefined): WindowSlot {
  const r = windowFromResource(resource, contents);
  if (!r.ok) {
    return { contents, error: r.error, uri: '', priority: 0, fullscreen: false, rendered: '', blobs: 0, unrecognized: 0, total: 0, warnings: NO_WARNINGS, identity: undefined };
  }
  const w = r.value;
  const c = w.contents;
  return {
    contents,
    error: undefined,
    uri: w.uri,
    priority: w.priority,
    fullscreen: w.fullscreen,
    rendered: renderWindow(w.uri, c.texts),
    blobs: c.blobs,
    unrecognized: c.unrecognized,
    total: c.total,
    warnings: r.warnings.length ? r.warnings : NO_WARNINGS,
    identity: windowIdentity(w.parsed),
  };
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
