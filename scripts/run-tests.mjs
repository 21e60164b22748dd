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
    listFailures(r.testResults ?? []);
  } catch (e) {
    console.error(`could not read the test report (${e.message}); vitest exited with ${code ?? signal}`);
    failed = Math.max(failed, 1);
  }
  rmSync(dir, { recursive: true, force: true });
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(code === 0 && failed === 0 ? 0 : 1);
});

/**
 * The failed tests again, last, each with the first lines of its error: CI shows only the tail of the output,
 * and vitest names its failures far above it.
 */
function listFailures(files) {
  const lines = [];
  for (const f of files) {
    const file = relative(process.cwd(), f.name);
    const failedTests = (f.assertionResults ?? []).filter((a) => a.status === 'failed');
    if (f.status === 'failed' && failedTests.length === 0) lines.push(`  ${file}: ${firstLines(f.message)}`);
    for (const a of failedTests) lines.push(`  ${file} > ${a.fullName}: ${firstLines(a.failureMessages?.[0])}`);
  }
  if (lines.length === 0) return;
  console.log('failed:');
  for (const l of lines.slice(0, 10)) console.log(l);
  if (lines.length > 10) console.log(`  … and ${lines.length - 10} more`);
}

function firstLines(message) {
  // eslint-disable-next-line no-control-regex -- vitest colours its messages; the tail must read plainly
  const text = String(message ?? '(no message)').replace(/\x1b\[[0-9;]*m/g, '');
  return text.split('\n').slice(0, 3).join(' | ').slice(0, 400);
}

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
