import { execFileSync } from 'node:child_process';
import { REPO } from './paths.js';

/**
 * Real-process tests run the compiled binaries: build once before any test file runs. Incremental,
 * so after `make build` this is a no-op check.
 */
export default function setup(): void {
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
