import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { REPO } from './paths.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** This run's private temp root: each test file gets its own directories under it (isolated-env.ts). */
    mcpdTestRoot: string;
  }
}

/**
 * Real-process tests run the compiled binaries: build once before any test file runs. Incremental,
 * so after `make build` this is a no-op check. Also makes the run's temp root, removed at the end.
 */
export default function setup(project: TestProject): () => void {
  // Short (sockets live under it: a unix socket path has at most 107 bytes) and searchable by others
  // (0755): tests running a command as another user reach their files in it.
  const root = mkdtempSync(join(tmpdir(), 'mcpd-t-'));
  chmodSync(root, 0o755);
  project.provide('mcpdTestRoot', root);
  build();
  return () => rmSync(root, { recursive: true, force: true });
}

function build(): void {
  // `make test` has just run `make build` (tsc, the dashboard bundle, check-dist): a second no-op tsc costs
  // seconds of CPU before the first test can start.
  if (process.env.MCPD_TEST_DIST_FRESH === '1') return;
  execFileSync(process.execPath, [`${REPO}/node_modules/typescript/bin/tsc`, '-p', `${REPO}/tsconfig.json`], { stdio: 'inherit' });
  // The dashboard bundle (dist/dashboard) the core serves.
  execFileSync(process.execPath, [`${REPO}/scripts/build-dashboard.mjs`], { stdio: 'inherit' });
  // As `make build`: drop outputs whose source moved away, and refuse test code in the shipped tree.
  execFileSync(process.execPath, [`${REPO}/scripts/check-dist.mjs`, '--prune'], { stdio: 'inherit' });
  // The programs as they ship: one bundle each (dist/cmd/*/main.js and their chunks).
  execFileSync(process.execPath, [`${REPO}/scripts/build-bundles.mjs`], { stdio: 'inherit' });
}
