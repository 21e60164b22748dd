import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The bundle `make build` writes to dist/dashboard (scripts/build-dashboard.mjs); this module runs from dist/internal/core/infra/dashboard. */
const ASSET_DIR = fileURLToPath(new URL('../../../../dashboard/', import.meta.url));

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** A chunk the script loads on demand (scripts/build-dashboard.mjs names them): no other path reaches the disk. */
const CHUNK = /^chunks\/[A-Za-z0-9_-]+\.js$/;

export interface Asset {
  type: string;
  body: Buffer;
}

/** The few files the page consists of, read once; unknown names are undefined (404), and so are missing chunks. */
export class DashboardAssets {
  private readonly cache = new Map<string, Asset>();

  constructor(private readonly dir = ASSET_DIR) {}

  get(name: string): Asset | undefined {
    const type = TYPES[name] ?? (CHUNK.test(name) ? 'text/javascript; charset=utf-8' : undefined);
    if (!type) return undefined;
    let a = this.cache.get(name);
    if (!a) {
      try {
        a = { type, body: readFileSync(`${this.dir}${name}`) };
      } catch {
        if (!TYPES[name]) return undefined; // a chunk of another build: not found
        const body = Buffer.from(`dashboard asset ${name} is missing from ${this.dir}: run "make build" (it bundles the dashboard)\n`);
        return { type: 'text/plain; charset=utf-8', body };
      }
      this.cache.set(name, a);
    }
    return a;
  }
}
