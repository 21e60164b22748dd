import { describe, expect, it } from 'vitest';
import { ConformanceScript } from '../support/conformance-script.js';
import { pidsWithTag } from '../support/procs.js';

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
  const script = new ConformanceScript('conformance.sh');

  it('passes every server scenario a proxy can pass', { timeout: 170_000 }, async () => {
    const { code, stdout, stderr } = await script.run();
    expect(code, `scripts/conformance.sh failed:\n${stderr}`).toBe(0);
    expect(stdout).toMatch(/^\d+ passed, \d+ failed$/m);

    const summary = script.summary<Outcome>();
    expect(Object.keys(summary).sort()).toEqual([...SCENARIOS].sort());
    const unexpected = SCENARIOS.filter((s) => !(s in KNOWN_FAILURES) && !(s in FLAKY) && !summary[s]?.passed).map(
      (s) => `${s}: ${summary[s]?.failures.join('; ')}`,
    );
    const stale = Object.keys(KNOWN_FAILURES).filter((s) => summary[s]?.passed);
    expect(unexpected, 'scenarios that should pass but failed').toEqual([]);
    expect(stale, 'scenarios listed as known failures that now pass: remove them from KNOWN_FAILURES and docs/conformance.md').toEqual([]);

    // The script stops everything it started before it exits.
    expect(pidsWithTag(script.tag)).toEqual([]);
  });
});
