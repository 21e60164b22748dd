/**
 * A window as the Computer sees it: the `resources/list` entry plus the `resources/read` contents,
 * merging the URI-query form (spec) with the later form (`Resource.annotations.priority`,
 * `Resource._meta.fullscreen`).
 *
 * Precedence: a value in the URI query wins; the Resource field is the fallback; otherwise the
 * default (priority 0, not fullscreen). The spec's URI form is normative for this project and the
 * later form is accepted "as well", so the URI is the more specific statement. When both are
 * present and disagree a warning says so.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../../shared/json.js';
import { parseWindowUri, type ParseResult, type WindowUri } from '../../../contract/desktop/window-uri.js';

/** What the contents of a `resources/read` result hold, in the terms rendering needs. */
export interface ContentsSummary {
  /** `text` of every TextResourceContents with a non-empty text, in order. */
  texts: string[];
  /** BlobResourceContents: not rendered. */
  blobs: number;
  /** Items that are neither text nor blob contents. */
  unrecognized: number;
  /** All items. */
  total: number;
}

type PrioritySource = 'uri' | 'annotations' | 'default';
type FullscreenSource = 'uri' | 'meta' | 'default';

interface ResolvedWindow {
  /** `Resource.uri` exactly as the server sent it: rendered and usable for `resources/read`. */
  uri: string;
  parsed: WindowUri;
  /** Effective priority on the 0–100 scale; fractional only when it came from annotations. */
  priority: number;
  prioritySource: PrioritySource;
  fullscreen: boolean;
  fullscreenSource: FullscreenSource;
  contents: ContentsSummary;
}

export type WindowResult = { ok: true; value: ResolvedWindow; warnings: string[] } | { ok: false; error: string };

/** Classifies `ReadResourceResult.contents`; missing or null means no contents. */
export function summarizeContents(contents: JsonValue | undefined): ParseResult<ContentsSummary> {
  const summary: ContentsSummary = { texts: [], blobs: 0, unrecognized: 0, total: 0 };
  if (contents === undefined || contents === null) return { ok: true, value: summary };
  if (!Array.isArray(contents)) {
    return { ok: false, error: `contents must be an array of resource contents, got ${typeof contents}` };
  }
  summary.total = contents.length;
  for (const item of contents) {
    if (isJsonObject(item) && typeof item.text === 'string') {
      if (item.text !== '') summary.texts.push(item.text);
    } else if (isJsonObject(item) && typeof item.blob === 'string') {
      summary.blobs++;
    } else {
      summary.unrecognized++;
    }
  }
  return { ok: true, value: summary };
}

/**
 * `annotations.priority` (float 0–1, MCP) → 0–100 scale: p × 100, rounded to 6 decimals so
 * binary-float noise (0.07 × 100 = 7.000000000000001) does not reorder it against URI integers.
 * Not rounded to an integer: 0.505 and 0.5 keep their order.
 */
export function annotationPriorityToScale(p: number): number {
  return Math.round(p * 100 * 1e6) / 1e6;
}

function readAnnotationPriority(resource: JsonObject, warn: (m: string) => void): number | undefined {
  const ann = resource.annotations;
  if (ann === undefined || ann === null) return undefined;
  if (!isJsonObject(ann)) {
    warn('annotations is not an object; ignored');
    return undefined;
  }
  const p = ann.priority;
  if (p === undefined || p === null) return undefined;
  if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > 1) {
    warn(`annotations.priority must be a number from 0 to 1, got ${JSON.stringify(p)}; ignored`);
    return undefined;
  }
  return annotationPriorityToScale(p);
}

function readMetaFullscreen(resource: JsonObject, warn: (m: string) => void): boolean | undefined {
  const meta = resource._meta;
  if (meta === undefined || meta === null) return undefined;
  if (!isJsonObject(meta)) {
    warn('_meta is not an object; ignored');
    return undefined;
  }
  const f = meta.fullscreen;
  if (f === undefined || f === null) return undefined;
  if (typeof f !== 'boolean') {
    warn(`_meta.fullscreen must be a JSON boolean, got ${JSON.stringify(f)}; ignored`);
    return undefined;
  }
  return f;
}

/**
 * Resolves one window. `resource` is the `resources/list` entry (an object with `uri`) or just the
 * URI string; `contents` is `ReadResourceResult.contents`. Fails only when the URI is not a valid
 * window URI or `contents` is not an array; bad metadata is ignored with a warning.
 */
export function windowFromResource(resource: JsonValue, contents?: JsonValue): WindowResult {
  const res: JsonObject | undefined = typeof resource === 'string' ? { uri: resource } : isJsonObject(resource) ? resource : undefined;
  if (!res || typeof res.uri !== 'string') {
    return { ok: false, error: 'resource must be a URI string or an object with a string "uri"' };
  }
  const uri = res.uri;
  const parsed = parseWindowUri(uri);
  if (!parsed.ok) return { ok: false, error: parsed.error };
  const summary = summarizeContents(contents);
  if (!summary.ok) return { ok: false, error: `window ${JSON.stringify(uri)}: ${summary.error}` };

  const warnings: string[] = [];
  const w = parsed.value;
  // Most resources carry neither field: skip the readers (and their closure) entirely.
  let annPriority: number | undefined;
  let metaFullscreen: boolean | undefined;
  if (res.annotations !== undefined || res._meta !== undefined) {
    const warn = (m: string): void => void warnings.push(`window ${JSON.stringify(uri)}: ${m}`);
    annPriority = readAnnotationPriority(res, warn);
    metaFullscreen = readMetaFullscreen(res, warn);
    if (w.priority !== undefined && annPriority !== undefined && w.priority !== annPriority) {
      warn(`URI priority ${w.priority} overrides annotations.priority (${annPriority / 100})`);
    }
    if (w.fullscreen !== undefined && metaFullscreen !== undefined && w.fullscreen !== metaFullscreen) {
      warn(`URI fullscreen=${w.fullscreen} overrides _meta.fullscreen=${metaFullscreen}`);
    }
  }
  const prioritySource: PrioritySource = w.priority !== undefined ? 'uri' : annPriority !== undefined ? 'annotations' : 'default';
  const priority = w.priority ?? annPriority ?? 0;
  const fullscreenSource: FullscreenSource = w.fullscreen !== undefined ? 'uri' : metaFullscreen !== undefined ? 'meta' : 'default';
  const fullscreen = w.fullscreen ?? metaFullscreen ?? false;
  return {
    ok: true,
    value: { uri, parsed: w, priority, prioritySource, fullscreen, fullscreenSource, contents: summary.value },
    warnings,
  };
}

/** `{URI}\n\n{texts joined by \n\n}`, or just `{URI}` when there is no non-empty text. */
export function renderWindow(uri: string, texts: readonly string[]): string {
  return texts.length ? `${uri}\n\n${texts.join('\n\n')}` : uri;
}
