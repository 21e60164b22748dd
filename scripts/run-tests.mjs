#!/usr/bin/env node
// Runs vitest with its normal console output plus a JSON report, then prints the plain
// `N passed, N failed` line that CI reads (it does not parse vitest's own summary).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

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
    recordDurations(r.testResults ?? []);
  } catch (e) {
    console.error(`could not read the test report (${e.message}); vitest exited with ${code ?? signal}`);
    failed = Math.max(failed, 1);
  }
  rmSync(dir, { recursive: true, force: true });
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(code === 0 && failed === 0 ? 0 : 1);
});

/**
 * Each file's wall time, longest first, into .tmp/test-durations.json, and the slowest named here: the data
 * for test/support/slow-first-sequencer.ts's list and for finding what makes the suite slow.
 */
function recordDurations(files) {
  const durations = files
    .map((f) => ({ file: relative(process.cwd(), f.name), seconds: Math.round((f.endTime - f.startTime) / 100) / 10 }))
    .filter((d) => Number.isFinite(d.seconds))
    .sort((a, b) => b.seconds - a.seconds);
  if (durations.length === 0) return;
  mkdirSync('.tmp', { recursive: true });
  writeFileSync('.tmp/test-durations.json', `${JSON.stringify(durations, null, 1)}\n`);
  const total = durations.reduce((n, d) => n + d.seconds, 0);
  console.log(`slowest files (of ${Math.round(total)} s of file time; all in .tmp/test-durations.json):`);
  for (const d of durations.slice(0, 8)) console.log(`  ${String(d.seconds).padStart(7)} s  ${d.file}`);
}
