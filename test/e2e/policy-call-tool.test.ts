import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import type { AuditCallFields, AuditEntry } from '../../internal/contract/audit/audit-entry.js';
import { coreWorld } from '../support/core-world.js';
import { callersWithRules } from '../support/policy-rules.js';
import { waitFor } from '../support/procs.js';
import { everythingServer, profile } from '../support/profiles.js';

interface Refusal {
  code?: number;
  message: string;
  data?: { details?: { policyRule?: string; retryAfterMs?: number } };
}

/** The JSON-RPC error a call through the call tool was refused with. */
async function refusalOf(client: Client, name: string, args: Record<string, unknown>): Promise<Refusal> {
  try {
    const r = await client.callTool({ name: 'mcpd_call_tool', arguments: { name, arguments: args } });
    throw new Error(`${name} through mcpd_call_tool was not refused: ${JSON.stringify(r)}`);
  } catch (e) {
    return e as Refusal;
  }
}

const echoed = (r: unknown) => (r as { content: { text: string }[] }).content[0]?.text;

describe('policy on the tool that tool search’s mcpd_call_tool names (mcpdmcp, a real core and server-everything)', () => {
  const world = coreWorld({
    'profiles/default.yaml': 'servers: []\n',
    'profiles/search.yaml': `toolSearch: true\n${profile(everythingServer('ev', { idleSeconds: 300 }))}`,
    'callers.yaml': callersWithRules('search'),
    // A loaded machine may take a while to start the server: the first listing waits for it.
    'runtime.yaml': 'metricsAddress: ""\nlistingBudgetSeconds: 60\n',
  });
  const audit = () =>
    readFileSync(join(world.configDir, '.mcpd-state', 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as AuditEntry)
      .filter((e): e is AuditEntry & AuditCallFields => e.kind === 'call');
  const entry = (want: Partial<AuditCallFields>) =>
    audit().find((e) => Object.entries(want).every(([k, v]) => e[k as keyof AuditCallFields] === v));

  it('the search tool neither finds nor counts a tool policy hides', async () => {
    const alice = await world.gateway('alice');
    const carol = await world.gateway('carol');
    const search = async (c: Client) =>
      (
        (await c.callTool({ name: 'mcpd_search_tools', arguments: { query: 'get-sum add two numbers', limit: 50 } })) as unknown as {
          structuredContent: { total: number; tools: { name: string }[] };
        }
      ).structuredContent;
    // The search answers from what is listed: carol finds the tool once the server was listed.
    let theirs = await search(carol);
    await waitFor('server-everything listed', async () => (theirs = await search(carol)).tools.some((t) => t.name === 'ev__get-sum'));
    const mine = await search(alice);
    expect(mine.tools.map((t) => t.name)).not.toContain('ev__get-sum');
    expect(mine.total).toBe(theirs.total - 1);
  }, 120_000);

  it('refuses a hidden or denied tool named through mcpd_call_tool as a direct call is, and audits the tool it named', async () => {
    const alice = await world.gateway('alice');
    const hidden = await refusalOf(alice, 'ev__get-sum', { a: 1, b: 2 });
    expect(hidden).toMatchObject({ code: -32003, data: { details: { policyRule: 'no-sum-for-alice' } } });
    expect(hidden.message).toMatch(
      /denied by policy rule "no-sum-for-alice" \(callers\.yaml line \d+\): alice may not use tool ev__get-sum/,
    );
    // The same words as a direct call of it.
    const direct = await alice.callTool({ name: 'ev__get-sum', arguments: { a: 1, b: 2 } }).then(
      () => undefined,
      (e: Refusal) => e.message,
    );
    expect(direct).toBe(hidden.message);

    // The condition reads the named tool's arguments, not the call tool's.
    const secret = await refusalOf(alice, 'ev__echo', { message: 'secret' });
    expect(secret).toMatchObject({ code: -32003, data: { details: { policyRule: 'no-secret-echo' } } });
    expect(echoed(await alice.callTool({ name: 'mcpd_call_tool', arguments: { name: 'ev__echo', arguments: { message: 'hi' } } }))).toBe(
      'Echo: hi',
    );

    await waitFor(
      'the three calls through mcpd_call_tool in the audit log',
      () => audit().filter((e) => e.via === 'mcpd_call_tool').length === 3,
    );
    expect(entry({ caller: 'alice', target: 'ev__get-sum', via: 'mcpd_call_tool' })).toMatchObject({
      method: 'tools/call',
      face: 'session',
      outcome: 'denied',
      rule: 'no-sum-for-alice',
    });
    expect(entry({ caller: 'alice', target: 'ev__echo', via: 'mcpd_call_tool', outcome: 'denied' })).toMatchObject({
      rule: 'no-secret-echo',
    });
    expect(entry({ caller: 'alice', target: 'ev__echo', via: 'mcpd_call_tool', outcome: 'ok' })).toBeDefined();
    // The direct refusal is recorded without `via`; nothing is recorded as a call of mcpd_call_tool itself.
    expect(entry({ caller: 'alice', target: 'ev__get-sum', outcome: 'denied', via: undefined })).toBeDefined();
    expect(entry({ target: 'mcpd_call_tool' })).toBeUndefined();
  }, 120_000);

  it('a quota on a tool counts its calls through mcpd_call_tool and direct ones alike', async () => {
    const carol = await world.gateway('carol');
    expect(echoed(await carol.callTool({ name: 'mcpd_call_tool', arguments: { name: 'ev__echo', arguments: { message: 'one' } } }))).toBe(
      'Echo: one',
    );
    const spent = await refusalOf(carol, 'ev__echo', { message: 'two' });
    expect(spent).toMatchObject({ code: -32003, data: { details: { policyRule: 'carol-echo-quota' } } });
    expect(spent.data?.details?.retryAfterMs).toBeGreaterThan(0);
    expect(spent.message).toMatch(
      /quota of policy rule "carol-echo-quota" \(1\/hour, callers\.yaml line \d+\) is used up for carol on tool ev__echo/,
    );
    await expect(carol.callTool({ name: 'ev__echo', arguments: { message: 'three' } })).rejects.toThrow(/carol-echo-quota/);

    await waitFor(
      'the quota refusal in the audit log',
      () => entry({ caller: 'carol', outcome: 'denied', via: 'mcpd_call_tool' }) !== undefined,
    );
    expect(entry({ caller: 'carol', outcome: 'denied', via: 'mcpd_call_tool' })).toMatchObject({
      target: 'ev__echo',
      rule: 'carol-echo-quota',
    });
    expect(entry({ caller: 'carol', outcome: 'ok', via: 'mcpd_call_tool' })).toMatchObject({ target: 'ev__echo' });
  }, 120_000);
});
