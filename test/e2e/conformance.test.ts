import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../support/paths.js';
import { killTagged, pidsWithTag } from '../support/procs.js';

/** Every server scenario of @modelcontextprotocol/conformance 0.1.16 (`conformance list --server`). */
const SCENARIOS = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'json-schema-2020-12',
  'elicitation-sep1034-defaults',
  'server-sse-polling',
  'server-sse-multiple-streams',
  'elicitation-sep1330-enums',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'dns-rebinding-protection',
];

/**
 * Scenarios mcpd is known not to pass, with the reason (kept in step with docs/conformance.md). A
 * scenario listed here that starts passing fails the test too, so the list cannot go stale.
 */
const KNOWN_FAILURES: Record<string, string> = {};

/**
 * Scenarios that pass or fail by timing, not by mcpd's design; they must run, but their outcome is not
 * asserted (see docs/conformance.md for the cause and the fix that would make them deterministic).
 */
const FLAKY: Record<string, string> = {};

interface Outcome {
  passed: boolean;
  failures: string[];
  warnings: string[];
}

describe('official MCP conformance suite through mcpdmcp --http', () => {
  const out = mkdtempSync(join(tmpdir(), 'mcpd-conformance-out-'));
  const tag = `conformance-test-${randomUUID()}`;
  afterAll(() => {
    const left = killTagged(tag);
    rmSync(out, { recursive: true, force: true });
    expect(left, 'processes the script left behind').toEqual([]);
  });

  it('passes every server scenario a proxy can pass', { timeout: 170_000 }, async () => {
    const { code, stdout, stderr } = await runScript({ CONFORMANCE_SKIP_BUILD: '1', CONFORMANCE_OUT: out, CONFORMANCE_TAG: tag });
    expect(code, `scripts/conformance.sh failed:\n${stderr}`).toBe(0);
    expect(stdout).toMatch(/^\d+ passed, \d+ failed$/m);

    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Record<string, Outcome>;
    expect(Object.keys(summary).sort()).toEqual([...SCENARIOS].sort());
    const unexpected = SCENARIOS.filter((s) => !(s in KNOWN_FAILURES) && !(s in FLAKY) && !summary[s]?.passed).map(
      (s) => `${s}: ${summary[s]?.failures.join('; ')}`,
    );
    const stale = Object.keys(KNOWN_FAILURES).filter((s) => summary[s]?.passed);
    expect(unexpected, 'scenarios that should pass but failed').toEqual([]);
    expect(stale, 'scenarios listed as known failures that now pass: remove them from KNOWN_FAILURES and docs/conformance.md').toEqual([]);

    // The script stops everything it started before it exits.
    expect(pidsWithTag(tag)).toEqual([]);
  });
});

function runScript(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('bash', [join(REPO, 'scripts/conformance.sh')], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
