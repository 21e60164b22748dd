import { describe, expect, it } from 'vitest';
import { ConformanceScript } from '../support/conformance-script.js';
import { pidsWithTag } from '../support/procs.js';

interface Outcome {
  passed: boolean;
  failures: string[];
  warnings: string[];
}

/** What `conformance server --requirements 2026-07-28` of 0.2.0-alpha.12 runs (`conformance list --server`). */
const REQUIRED_2026 = [
  'caching',
  'completion-complete',
  'dns-rebinding-protection',
  'http-custom-header-server-validation',
  'http-header-validation',
  'input-required-result-basic-elicitation',
  'input-required-result-basic-list-roots',
  'input-required-result-basic-sampling',
  'input-required-result-capability-check',
  'input-required-result-ignore-extra-params',
  'input-required-result-missing-input-response',
  'input-required-result-multi-round',
  'input-required-result-multiple-input-requests',
  'input-required-result-non-tool-request',
  'input-required-result-request-state',
  'input-required-result-result-type',
  'input-required-result-tampered-state',
  'input-required-result-unsupported-methods',
  'input-required-result-validate-input',
  'json-schema-2020-12',
  'prompts-get-embedded-resource',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-with-image',
  'prompts-list',
  'resources-list',
  'resources-read-binary',
  'resources-read-text',
  'resources-templates-read',
  'sep-2164-resource-not-found',
  'server-sse-multiple-streams',
  'server-stateless',
  'tasks-capability-negotiation',
  'tasks-dispatch-and-envelope',
  'tasks-lifecycle',
  'tasks-mrtr-composition',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-request-state-removal',
  'tasks-required-task-error',
  'tasks-status-notifications',
  'tasks-wire-fields',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-error',
  'tools-call-image',
  'tools-call-mixed-content',
  'tools-call-simple-text',
  'tools-call-with-progress',
  'tools-list',
];

/** Kept in step with docs/conformance.md; one that starts passing fails the test, so the list cannot go stale. */
const KNOWN_FAILURES: Record<string, string> = {};

function check(script: ConformanceScript, scenarios: string[], known: Record<string, string>): void {
  const summary = script.summary<Outcome>();
  expect(Object.keys(summary).sort()).toEqual([...scenarios].sort());
  const unexpected = scenarios.filter((s) => !(s in known) && !summary[s]?.passed).map((s) => `${s}: ${summary[s]?.failures.join('; ')}`);
  const stale = Object.keys(known).filter((s) => summary[s]?.passed);
  expect(unexpected, 'scenarios that should pass but failed').toEqual([]);
  expect(stale, 'scenarios listed as known failures that now pass: remove them here and in docs/conformance.md').toEqual([]);
  expect(pidsWithTag(script.tag)).toEqual([]);
}

describe('official MCP conformance suite 0.2.0-alpha.12 through mcpdmcp --http', () => {
  const modern = new ConformanceScript('conformance.sh', {
    CONFORMANCE_VERSION: '0.2.0-alpha.12',
    CONFORMANCE_SELECT: '--requirements 2026-07-28',
  });
  const legacy = new ConformanceScript('conformance.sh', {
    CONFORMANCE_VERSION: '0.2.0-alpha.12',
    CONFORMANCE_SELECT: '--spec-version 2025-11-25',
  });

  it(
    'passes every 2026-07-28 requirement (stateless requests, MRTR, discover, listen, caching, hosted tasks, MRTR-then-task composition)',
    { timeout: 240_000 },
    async () => {
      const { code, stdout, stderr } = await modern.run();
      expect(code, `scripts/conformance.sh failed:\n${stderr}`).toBe(0);
      expect(stdout).toMatch(/^\d+ passed, \d+ failed$/m);
      check(modern, REQUIRED_2026, KNOWN_FAILURES);
    },
  );

  it('passes every 2025-11-25 scenario of the same suite (sessions as before)', { timeout: 240_000 }, async () => {
    const { code, stdout, stderr } = await legacy.run();
    expect(code, `scripts/conformance.sh failed:\n${stderr}`).toBe(0);
    expect(stdout).toMatch(/^31 passed, 0 failed$/m);
    expect(Object.values(legacy.summary<Outcome>()).every((o) => o.passed)).toBe(true);
    expect(pidsWithTag(legacy.tag)).toEqual([]);
  });
});
