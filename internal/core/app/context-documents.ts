import type { FinderChangeDetector } from '../domain/finder/change-detect.js';
import { parseDpeUri } from '../../contract/finder/dpe-uri.js';
import { summaryFromLevel1 } from '../domain/finder/summary.js';
import type { DPEDocumentSummary } from '../../contract/finder/types.js';
import type { CoreLog } from './area-deps.js';
import { errorText, firstText, mapLimit, readContents, READ_CONCURRENCY } from './context-downstream.js';
import type { PoolPort } from './pool-port.js';

export interface DocumentDeps {
  pools: Pick<PoolPort, 'request'>;
  finder: FinderChangeDetector;
  log: CoreLog;
}

/** Level-1 `dpe://host/doc-ref` URIs only: the catalogue entries the finder reads. */
function docKey(uri: string): string | undefined {
  try {
    const p = parseDpeUri(uri);
    return p.level === 1 && p.docRef !== undefined ? `${p.host}\u0000${p.docRef}` : undefined;
  } catch {
    // Not a dpe:// URI (or a malformed one): no document of the finder's.
    return undefined;
  }
}

/** The `dpe://` Level-1 documents one pooled server contributes to the Finder channel, as summaries. */
export class SourceDocuments {
  private map = new Map<string, DPEDocumentSummary>();
  private changes = 0;

  constructor(
    private readonly fingerprint: string,
    private readonly label: string,
    private readonly deps: DocumentDeps,
  ) {}

  /** Level-1 URI (as listed) → summary; `server` holds the label, replaced per profile. */
  get docs(): ReadonlyMap<string, DPEDocumentSummary> {
    return this.map;
  }

  /** Bumped whenever `docs` changes, so assembled catalogues know when to rebuild. */
  get version(): number {
    return this.changes;
  }

  /**
   * Takes the documents of a full resource list; `fresh` re-reads them all, otherwise only the new
   * ones. `finderChanged`: the finder's view of the list moved. Returns the document URIs listed.
   */
  async apply(uris: string[], fresh: boolean, finderChanged: boolean): Promise<string[]> {
    const docUris = uris.filter((u) => docKey(u) !== undefined);
    const read = await mapLimit(docUris, READ_CONCURRENCY, async (uri) => (!fresh && this.map.get(uri)) || (await this.read(uri)));
    const docs = new Map<string, DPEDocumentSummary>();
    docUris.forEach((u, i) => {
      const d = read[i];
      if (d) docs.set(u, d);
    });
    if (fresh || finderChanged || docs.size !== this.map.size) this.changes++;
    this.map = docs;
    return docUris;
  }

  /** The server no longer takes part (or is gone): no documents. */
  clear(): void {
    if (this.map.size) this.changes++;
    this.map = new Map();
  }

  /** The pool is gone: no documents, and catalogues rebuild. */
  forget(): void {
    this.map = new Map();
    this.changes++;
  }

  /** An update for a catalogue (Level 0) re-reads every document; for a document (any level) that one. */
  async refreshFor(uri: string): Promise<void> {
    let level: number;
    let key: string | undefined;
    try {
      const p = parseDpeUri(uri);
      level = p.level;
      key = p.docRef === undefined ? undefined : `${p.host}\u0000${p.docRef}`;
    } catch {
      // An update for a URI that is no dpe:// one concerns no document.
      return;
    }
    const targets = [...this.map.keys(), ...this.deps.finder.uris(this.fingerprint)].filter(
      (u, i, all) => all.indexOf(u) === i && (level === 0 ? docKey(u) !== undefined : docKey(u) === key),
    );
    const docs = new Map(this.map);
    await mapLimit(targets, READ_CONCURRENCY, async (u) => {
      const d = await this.read(u);
      if (d) docs.set(u, d);
      else docs.delete(u);
    });
    this.map = docs;
    this.changes++;
  }

  private async read(uri: string): Promise<DPEDocumentSummary | undefined> {
    try {
      const text = firstText(await readContents(this.deps.pools, this.fingerprint, uri));
      return summaryFromLevel1(text ?? null, this.label);
    } catch (e) {
      this.deps.log('warning', 'context.document_unreadable', { server: this.label, uri, error: errorText(e) });
      return undefined;
    }
  }
}
