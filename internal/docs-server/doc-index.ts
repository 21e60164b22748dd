import { realpathSync, type Stats } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { assignElementIds, type DpeDocument } from './domain/document.js';
import type { DpeDocumentSource } from './domain/dpe-read.js';
import { formatFor } from './parsers/index.js';
import type { ParsedContent } from './parsers/types.js';
import { DEFAULT_DOC_LIMITS, type DocLimits } from './doc-limits.js';
import { declaredUnpackedBytes } from './zip-size.js';
import { openRegularFile } from './regular-file.js';
import { ParsePool } from './parse-pool.js';

/**
 * How a file's bytes become content: in this thread (default) or in a worker (worker-parse.ts). It runs
 * in a slot of the index's pool, taken before the file was read; `release` gives the slot back once the
 * parse holds nothing any more (for a worker: once it has exited), and is called exactly once.
 */
export type ParseFn = (fileName: string, bytes: Uint8Array, stem: string, limits: DocLimits, release: () => void) => Promise<ParsedContent>;

const parseHere: ParseFn = async (fileName, bytes, stem, limits, release) => {
  try {
    const fmt = formatFor(fileName);
    if (!fmt) throw new Error(`no parser for ${fileName}`);
    return await fmt.parse(bytes, stem, { maxUnpackedBytes: limits.maxUnpackedBytes });
  } finally {
    release();
  }
};

export interface DocIndexOptions {
  limits?: DocLimits;
  parse?: ParseFn;
  /** Slots for reading and parsing a file, --parse-workers at once; shared by every index of the process. */
  pool?: ParsePool;
}

export interface DocRoot {
  dir: string;
  /** `dir` with every link resolved: a document's real path must lie under it. */
  real: string;
  /** Prefix of doc_refs under this root; empty when there is only one root. */
  label: string;
}

export type UpsertResult = 'added' | 'changed' | 'unchanged' | 'unsupported' | 'failed';

interface Entry {
  doc: DpeDocument;
  mtimeMs: number;
  size: number;
}

/**
 * The server's documents, keyed by absolute path. Incremental: a file is re-parsed only when its
 * mtime or size changed. A file that fails to parse keeps its last good version (an editor's
 * half-written save should not make a document vanish); a new file that fails is not listed.
 */
export class DocIndex implements DpeDocumentSource {
  private readonly byPath = new Map<string, Entry>();
  private readonly byRef = new Map<string, string>();

  private readonly limits: DocLimits;
  private readonly parse: ParseFn;
  private readonly pool: ParsePool;

  constructor(
    readonly roots: readonly DocRoot[],
    private readonly log: (msg: string) => void = () => undefined,
    opts: DocIndexOptions = {},
  ) {
    this.limits = opts.limits ?? DEFAULT_DOC_LIMITS;
    this.parse = opts.parse ?? parseHere;
    this.pool = opts.pool ?? new ParsePool();
  }

  static rootsFor(dirs: readonly string[]): DocRoot[] {
    const used = new Set<string>();
    return dirs.map((d) => {
      const dir = path.resolve(d);
      const real = realPathOr(dir);
      if (dirs.length === 1) return { dir, real, label: '' };
      const base = path.basename(dir) || 'root';
      let label = base;
      for (let n = 2; used.has(label); n++) label = `${base}-${n}`;
      used.add(label);
      return { dir, real, label };
    });
  }

  /** doc_ref = path relative to its root with "/" separators, prefixed "label/" with several roots. */
  docRefFor(absPath: string): string | undefined {
    for (const r of this.roots) {
      const rel = path.relative(r.dir, absPath);
      if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) {
        const posix = rel.split(path.sep).join('/');
        return r.label ? `${r.label}/${posix}` : posix;
      }
    }
    return undefined;
  }

  async upsert(absPath: string): Promise<UpsertResult> {
    const fmt = formatFor(path.basename(absPath));
    const docRef = this.docRefFor(absPath);
    if (!fmt || docRef === undefined) return 'unsupported';
    const prev = this.byPath.get(absPath);
    // The slot comes before the read: files waiting for one hold no bytes (all of a folder's files used to
    // be read at once, each then waiting with its bytes for a worker).
    const release = await this.pool.acquire(this.limits.parseWorkers);
    let handedOver = false;
    try {
      // A link out of the folder (to a key file, say) is not a document of this folder.
      const real = await realpath(absPath);
      if (!this.roots.some((r) => isInside(r.real, real))) {
        this.log(`not indexing ${absPath}: it resolves to ${real}, outside the served folders`);
        if (prev) this.remove(absPath);
        return 'unsupported';
      }
      const read = await this.readIfChanged(real, prev);
      if (read === 'unchanged') return 'unchanged';
      const { bytes, st } = read;
      if (fmt.fileType === 'xlsx') this.checkDeclaredSize(bytes);
      handedOver = true;
      const content = await this.parse(path.basename(absPath), bytes, path.basename(absPath, path.extname(absPath)), this.limits, release);
      const doc: DpeDocument = {
        doc_ref: docRef,
        file_uri: pathToFileURL(absPath).href,
        file_type: fmt.fileType,
        title: content.title,
        ...(content.keywords && content.keywords.length > 0 ? { keywords: content.keywords } : {}),
        ...(content.summary ? { summary: content.summary } : {}),
        last_modified: new Date(st.mtimeMs).toISOString(),
        pages: assignElementIds(content.pages),
      };
      this.byPath.set(absPath, { doc, mtimeMs: st.mtimeMs, size: st.size });
      this.byRef.set(docRef, absPath);
      return prev ? 'changed' : 'added';
    } catch (e) {
      this.log(`cannot index ${absPath}: ${(e as Error).message}${prev ? ' (keeping the previous version)' : ''}`);
      return 'failed';
    } finally {
      if (!handedOver) release();
    }
  }

  /** The file's bytes, or 'unchanged' when its mtime and size are those of the indexed version. */
  private async readIfChanged(real: string, prev: Entry | undefined): Promise<{ bytes: Uint8Array; st: Stats } | 'unchanged'> {
    const file = await openRegularFile(real);
    try {
      const st = file.stat;
      if (prev && prev.mtimeMs === st.mtimeMs && prev.size === st.size) return 'unchanged';
      if (st.size > this.limits.maxFileBytes) {
        throw new Error(`the file is ${st.size} bytes, over the ${this.limits.maxFileBytes}-byte limit (--max-file-bytes)`);
      }
      return { bytes: await file.read(), st };
    } finally {
      await file.close();
    }
  }

  /** Cheap first refusal, before a worker starts: what the zip declares (the parser counts what it really inflates). */
  private checkDeclaredSize(bytes: Uint8Array): void {
    const unpacked = declaredUnpackedBytes(bytes);
    if (unpacked > this.limits.maxUnpackedBytes) {
      throw new Error(
        `the workbook unpacks to ${unpacked} bytes, over the ${this.limits.maxUnpackedBytes}-byte limit (--max-unpacked-bytes)`,
      );
    }
  }

  remove(absPath: string): boolean {
    const e = this.byPath.get(absPath);
    if (!e) return false;
    this.byPath.delete(absPath);
    this.byRef.delete(e.doc.doc_ref);
    return true;
  }

  get(docRef: string): DpeDocument | undefined {
    const p = this.byRef.get(docRef);
    return p === undefined ? undefined : this.byPath.get(p)?.doc;
  }

  all(): DpeDocument[] {
    return [...this.byPath.values()].map((e) => e.doc);
  }
}

function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** The real path of a folder; the folder itself when it does not exist (yet). */
function realPathOr(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}
