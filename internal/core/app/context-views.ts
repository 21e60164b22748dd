/**
 * Turning the per-server sources of one profile into organizer input, and etags of the results.
 */
import type { DesktopWindowInput } from '../domain/desktop/organize.js';
import type { DPEDocumentSummary } from '../../contract/finder/types.js';
import { sha256Hex } from '../../contract/model/naming.js';
import type { ContextSource } from './context-source.js';

const CONTEXT_ETAG_LENGTH = 16;

/** A profile server with the source of its spec. */
export interface ProfileSource {
  server: string;
  fingerprint: string;
  source: ContextSource;
}

/** Hash of the rendered desktop: equal entries in equal order give equal etags. */
export function desktopEtag(entries: readonly string[]): string {
  return sha256Hex(`${entries.length}\n${entries.join('\u0000')}`).slice(0, CONTEXT_ETAG_LENGTH);
}

/** Hash of the ordered catalogue. */
export function finderEtag(docs: readonly DPEDocumentSummary[]): string {
  return sha256Hex(JSON.stringify(docs)).slice(0, CONTEXT_ETAG_LENGTH);
}

/** Windows of every participating server, in profile order then list order (the spec's "original order"). */
export function windowInputs(servers: readonly ProfileSource[]): DesktopWindowInput[] {
  const out: DesktopWindowInput[] = [];
  for (const s of servers) {
    if (!s.source.participates) continue;
    for (const w of s.source.windows) out.push({ server: s.server, resource: w.resource, contents: w.contents });
  }
  return out;
}

/** Load and read problems, named by the profile's server name. */
export function sourceWarnings(servers: readonly ProfileSource[]): string[] {
  const out: string[] = [];
  for (const s of servers) {
    if (s.source.loadProblem) out.push(`server ${JSON.stringify(s.server)} left out of the desktop: ${s.source.loadProblem}`);
    for (const p of s.source.readProblems.values()) out.push(`server ${JSON.stringify(s.server)}: ${p}`);
  }
  return out;
}

export interface Catalog {
  key: string;
  docs: DPEDocumentSummary[];
  /** Servers that have at least one document. */
  servers: string[];
}

export function catalogKey(servers: readonly ProfileSource[]): string {
  return servers.map((s) => `${s.server}\u0000${s.fingerprint}\u0000${s.source.docsVersion}`).join('\n');
}

/** Every document of the profile with `server` set to the profile's server name. */
export function assembleCatalog(servers: readonly ProfileSource[]): Catalog {
  const docs: DPEDocumentSummary[] = [];
  const withDocs: string[] = [];
  for (const s of servers) {
    if (!s.source.participates || s.source.docs.size === 0) continue;
    withDocs.push(s.server);
    for (const d of s.source.docs.values()) docs.push(d.server === s.server ? d : { ...d, server: s.server });
  }
  return { key: catalogKey(servers), docs, servers: withDocs };
}
