import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { assignElementIds, type DpeDocument } from '../../domain/finder/document.js';
import type { DpeDocumentSource } from '../../domain/finder/dpe-read.js';
import { formatFor } from './parsers/index.js';

export interface DocRoot {
  dir: string;
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

  constructor(
    readonly roots: readonly DocRoot[],
    private readonly log: (msg: string) => void = () => undefined,
  ) {}

  static rootsFor(dirs: readonly string[]): DocRoot[] {
    const used = new Set<string>();
    return dirs.map((d) => {
      const dir = path.resolve(d);
      if (dirs.length === 1) return { dir, label: '' };
      const base = path.basename(dir) || 'root';
      let label = base;
      for (let n = 2; used.has(label); n++) label = `${base}-${n}`;
      used.add(label);
      return { dir, label };
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
    try {
      const st = await stat(absPath);
      if (prev && prev.mtimeMs === st.mtimeMs && prev.size === st.size) return 'unchanged';
      const content = await fmt.parse(new Uint8Array(await readFile(absPath)), path.basename(absPath, path.extname(absPath)));
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
