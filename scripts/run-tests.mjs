#!/usr/bin/env node
// Runs vitest with its normal console output plus a JSON report, then prints the plain
// `N passed, N failed` line that CI reads (it does not parse vitest's own summary).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'mcpd-test-report-'));
const report = join(dir, 'report.json');
// Coverage (vitest.config.ts: summary, 90% lines floor for internal/core/domain) on a whole run only: a
// run of a few files would miss the floor by construction.
const coverage = process.argv.length > 2 ? [] : ['--coverage'];
const args = [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...coverage,
  ...process.argv.slice(2),
];
const child = spawn('npx', args, { stdio: 'inherit' });
child.on('exit', (code, signal) => {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  try {
    const r = JSON.parse(readFileSync(report, 'utf8'));
    passed = r.numPassedTests;
    failed = r.numFailedTests;
    skipped = r.numPendingTests + (r.numTodoTests ?? 0);
    // A file that fails to load, or whose beforeAll fails (its tests then count as skipped), has no failed
    // test counted: count it as one failure, never as silence.
    for (const f of r.testResults ?? []) {
      if (f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed')) failed++;
    }
  } catch (e) {
    console.error(`could not read the test report (${e.message}); vitest exited with ${code ?? signal}`);
    failed = Math.max(failed, 1);
  }
  rmSync(dir, { recursive: true, force: true });
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(code === 0 && failed === 0 ? 0 : 1);
});
