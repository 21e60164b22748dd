/**
 * What the desktop organizer needs to know about one collected window.
 *
 * The common window — a `{ uri }` resource (or a bare URI) with a plain, well-formed URI and an
 * array of contents — is resolved by an allocation-free fast path (`scanWindowUri`, one pass over
 * the contents) into a scratch slot. Anything else (annotations / `_meta`, unusual or invalid URIs, contents that are
 * not an array) goes through `windowFromResource`, which owns every rule and message, so both
 * paths give the same answer.
 */
import { isJsonObject, type JsonValue } from '../../../shared/json.js';
import { parseWindowUri, windowIdentity } from '../../../contract/desktop/window-uri.js';
import { SCAN_FULLSCREEN_SHIFT, SCAN_NO_PRIORITY, SCAN_SLOW, scanWindowUri } from './window-uri-scan.js';
import { renderWindow, windowFromResource } from './window-resource.js';

/**
 * What collecting needs from one window. The fast path fills a caller-owned scratch slot (no
 * allocation); the slow path returns a memoized slot. Either way the caller reads it at once and
 * keeps nothing but the strings and numbers it copies out.
 */
export interface WindowSlot {
  /** The contents object this slot was computed from (a memo hit needs the identical object). */
  contents: JsonValue | undefined;
  /** Why the window is unusable (invalid URI, bad contents); undefined when usable. */
  error: string | undefined;
  /** `Resource.uri` exactly as sent. */
  uri: string;
  priority: number;
  fullscreen: boolean;
  /** The Desktop entry. */
  rendered: string;
  blobs: number;
  unrecognized: number;
  total: number;
  /** Metadata warnings of the annotations form. */
  warnings: readonly string[];
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

/** A slot for `windowSlot`'s fast path to fill. */
export function scratchSlot(): WindowSlot {
  return emptySlot(undefined, undefined);
}

/**
 * The slot of a collected window: `scratch`, filled, for the common window; otherwise a slot from
 * the memo (computed on a miss). Read it before the next call: `scratch` is overwritten.
 */
export function windowSlot(resource: JsonValue, contents: JsonValue | undefined, scratch: WindowSlot): WindowSlot {
  if (fillFast(resource, contents, scratch)) return scratch;
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

/** Fills `out` and returns true for a window the fast path can take; false leaves it to slowSlot. */
function fillFast(resource: JsonValue, contents: JsonValue | undefined, out: WindowSlot): boolean {
  let uri: JsonValue | undefined;
  if (typeof resource === 'string') uri = resource;
  else if (typeof resource === 'object' && resource !== null && !Array.isArray(resource)) {
    if (resource.annotations !== undefined || resource._meta !== undefined) return false;
    uri = resource.uri;
  }
  if (typeof uri !== 'string') return false;
  if (contents !== undefined && contents !== null && !Array.isArray(contents)) return false;
  const packed = scanWindowUri(uri);
  if (packed === SCAN_SLOW) return false;
  const p = packed & 0xff;
  const items = (contents ?? []) as readonly JsonValue[];
  let body = '';
  let blobs = 0;
  let unrecognized = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (isJsonObject(item) && typeof item.text === 'string') {
      // Empty texts are left out so they add no blank lines (renderWindow's rule).
      if (item.text !== '') body = body === '' ? item.text : `${body}\n\n${item.text}`;
    } else if (isJsonObject(item) && typeof item.blob === 'string') blobs++;
    else unrecognized++;
  }
  out.contents = contents;
  out.error = undefined;
  out.uri = uri;
  out.priority = p === SCAN_NO_PRIORITY ? 0 : p;
  out.fullscreen = packed >> SCAN_FULLSCREEN_SHIFT === 2;
  out.rendered = body === '' ? uri : `${uri}\n\n${body}`;
  out.blobs = blobs;
  out.unrecognized = unrecognized;
  out.total = items.length;
  out.warnings = NO_WARNINGS;
  out.identity = undefined;
  return true;
}

function emptySlot(contents: JsonValue | undefined, error: string | undefined): WindowSlot {
  return {
    contents,
    error,
    uri: '',
    priority: 0,
    fullscreen: false,
    rendered: '',
    blobs: 0,
    unrecognized: 0,
    total: 0,
    warnings: NO_WARNINGS,
    identity: undefined,
  };
}

function slowSlot(resource: JsonValue, contents: JsonValue | undefined): WindowSlot {
  const r = windowFromResource(resource, contents);
  if (!r.ok) return emptySlot(contents, r.error);
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
