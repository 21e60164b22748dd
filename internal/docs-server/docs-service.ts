import { DocIndex } from './doc-index.js';
import type { DocLimits } from './doc-limits.js';
import { parseInWorker, workerParsePool } from './worker-parse.js';
import { DocsMcpServer } from './docs-server.js';
import { watchFolders, type FolderEvent } from './folder-watcher.js';

export interface DocsServiceOptions {
  host: string;
  dirs: readonly string[];
  log: (msg: string) => void;
  limits?: DocLimits;
}

/**
 * Index + MCP server + watcher. Events for one file are applied in order (a per-path chain), and
 * notifications are sent only after the initial scan, so a client never hears about files that
 * were already there when it connected.
 */
export class DocsService {
  readonly index: DocIndex;
  readonly mcp: DocsMcpServer;
  private readonly chains = new Map<string, Promise<void>>();
  private announce = false;
  private watcher?: { ready: Promise<void>; close: () => Promise<void> };
  private readonly scan = settleable();

  constructor(private readonly opts: DocsServiceOptions) {
    // Files are parsed in a worker with a deadline and a heap limit.
    this.index = new DocIndex(DocIndex.rootsFor(opts.dirs), opts.log, { limits: opts.limits, parse: parseInWorker, pool: workerParsePool });
    this.mcp = new DocsMcpServer(opts.host, this.index, opts.log, this.scan.promise);
    // A failed scan fails start() (below) for its caller; listings waiting on it fail with it.
    this.scan.promise.catch(() => undefined);
  }

  /** Resolves when every existing document is indexed; the MCP server's listings wait for it. */
  async start(): Promise<void> {
    try {
      await this.scanFolders();
      this.scan.settle();
    } catch (e) {
      this.scan.settle(e);
      throw e;
    }
  }

  private async scanFolders(): Promise<void> {
    this.watcher = watchFolders(
      this.index.roots.map((r) => r.dir),
      (ev, p) => this.enqueue(ev, p),
    );
    await this.watcher.ready;
    await this.idle();
    this.announce = true;
    this.opts.log(
      `indexed ${this.index.all().length} document(s) under ${this.index.roots.map((r) => r.dir).join(', ')} as dpe://${this.opts.host}`,
    );
  }

  async stop(): Promise<void> {
    await this.watcher?.close();
    await this.idle();
  }

  /** Waits until every queued file event has been applied. */
  async idle(): Promise<void> {
    while (this.chains.size > 0) await Promise.all([...this.chains.values()]);
  }

  private enqueue(ev: FolderEvent, absPath: string): void {
    const prev = this.chains.get(absPath) ?? Promise.resolve();
    const next = prev.then(() => this.apply(ev, absPath)).catch((e: unknown) => this.opts.log(`event ${ev} ${absPath}: ${String(e)}`));
    this.chains.set(absPath, next);
    // `next` already logs its failure (above), so it resolves; this only forgets the finished chain.
    void next.then(() => {
      if (this.chains.get(absPath) === next) this.chains.delete(absPath);
    });
  }

  private async apply(ev: FolderEvent, absPath: string): Promise<void> {
    if (ev === 'unlink') {
      const ref = this.index.docRefFor(absPath);
      if (this.index.remove(absPath) && this.announce && ref !== undefined) {
        await this.mcp.listChanged();
        await this.mcp.documentUpdated(ref);
      }
      return;
    }
    const result = await this.index.upsert(absPath);
    if (!this.announce) return;
    const ref = this.index.docRefFor(absPath);
    if (result === 'added') await this.mcp.listChanged();
    if ((result === 'added' || result === 'changed') && ref !== undefined) await this.mcp.documentUpdated(ref);
  }
}

/** A promise settled from outside: with an error when one is given. */
function settleable(): { promise: Promise<void>; settle: (error?: unknown) => void } {
  let settle: (error?: unknown) => void = () => undefined;
  const promise = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error instanceof Error ? error : new Error(String(error))));
  });
  return { promise, settle };
}
