import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../shared/json.js';
import { DEFAULT_NAMESPACE, type Profile } from '../../contract/model/profile.js';
import type { DownstreamTool } from '../../contract/model/tool.js';
import { buildToolSnapshot } from '../domain/aggregator/tool-snapshot.js';
import { CALL_TOOL, SEARCH_TOOL } from '../domain/aggregator/tool-search-view.js';
import { spec } from '../../../test/support/aggregator.js';
import { toolCatalog } from '../../../test/fixtures/tool-catalog.js';
import { ToolSearchCalls } from './tool-search-calls.js';

function catalogProfile(count: number, pinned: string[] = []): { profile: Profile; byServer: Map<string, DownstreamTool[]> } {
  const byServer = new Map<string, DownstreamTool[]>();
  for (const t of toolCatalog(count)) {
    const list = byServer.get(t.server) ?? [];
    list.push({ name: t.name, definition: { name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema } });
    byServer.set(t.server, list);
  }
  const profile: Profile = {
    name: 'big',
    file: '/big.yaml',
    servers: [...byServer.keys()].map((s) => spec(s)),
    inputs: [],
    namespace: DEFAULT_NAMESPACE,
    toolSearch: { pinned, maxResults: 3 },
  };
  return { profile, byServer };
}

const QUERIES: [query: string, expected: string][] = [
  ['create a GitHub issue about a crash', 'github__create_issue'],
  ['remove a Kubernetes pod', 'k8s__delete_pod'],
  ["what's the weather going to be in Paris this weekend", 'weather__get_forecast'],
  ['translate this paragraph into German', 'deepl__translate_text'],
  ['take a screenshot of the web page', 'puppeteer__screenshot'],
  ['find Jira tickets about login failures', 'jira__search_tickets'],
  ['refund a Stripe charge', 'stripe__create_refund'],
  ['rename a file on disk', 'filesystem__move_file'],
  ['schedule a meeting in Google Calendar', 'gcal__create_event'],
  ['show all open pull requests on GitHub', 'github__list_pull_requests'],
  ['commit my staged changes to the repo', 'git__git_commit'],
  ['run a SQL select against the sqlite database', 'sqlite__run_query'],
  ['draft an email in Gmail', 'gmail__create_draft'],
  ['add a new contact to HubSpot', 'hubspot__create_contact'],
  ['which Docker containers are there', 'docker__list_containers'],
  ['convert 9am Berlin time to the Tokyo time zone', 'time__convert_time'],
  ['get the contents of a web page as markdown', 'fetch__fetch_url'],
  ['delete a Stripe customer', 'stripe__delete_customer'],
  ['read the text of a file', 'filesystem__read_text_file'],
  ['scale a Kubernetes deployment to 3 replicas', 'k8s__update_deployment'],
];

describe('tool search mode', () => {
  const { profile, byServer } = catalogProfile(1200, ['weather__*', 'git__git_commit']);
  const snap = buildToolSnapshot(profile, (s) => `fp-${s}`, byServer);
  const calls = new ToolSearchCalls();

  it('lists the search tool, the call tool and the pinned tools; keeps every tool callable in the catalog', () => {
    expect(snap.catalog?.length).toBeGreaterThanOrEqual(1000);
    expect(snap.tools.map((t) => t.name)).toEqual([
      SEARCH_TOOL,
      CALL_TOOL,
      'git__git_commit',
      'weather__get_alerts',
      'weather__get_forecast',
    ]);
    expect(snap.problems).toEqual([]);
  });

  it.each(QUERIES)('finds the expected tool in the top 3 for %j', (query, expected) => {
    const r = calls.search(snap, profile.toolSearch!, { query, limit: 3 });
    const names = ((r.structuredContent as JsonObject).tools as JsonObject[]).map((t) => t.name);
    expect(names).toContain(expected);
    // Full definitions, as the client would list them: schema included, exposed name.
    const hit = ((r.structuredContent as JsonObject).tools as JsonObject[]).find((t) => t.name === expected) as JsonObject;
    expect(hit.inputSchema).toMatchObject({ type: 'object' });
  });

  it('finds at least 18 of the 20 at rank 1 or 2 (ranking, not only recall)', () => {
    const good = QUERIES.filter(([query, expected]) => {
      const r = calls.search(snap, profile.toolSearch!, { query, limit: 2 });
      return ((r.structuredContent as JsonObject).tools as JsonObject[]).some((t) => t.name === expected);
    });
    expect(good.length).toBeGreaterThanOrEqual(18);
  });

  it("leaves out what the caller's policy hides: no hit, not counted, the limit filled from the rest", () => {
    const query = 'create a GitHub issue about a crash';
    const namesOf = (r: JsonObject) => ((r.structuredContent as JsonObject).tools as JsonObject[]).map((t) => String(t.name));
    const open = calls.search(snap, profile.toolSearch!, { query, limit: 3 });
    expect(namesOf(open)).toContain('github__create_issue');
    const visibleName = (name: string) => !name.startsWith('github__');
    const hiding = calls.search(snap, profile.toolSearch!, { query, limit: 3 }, (t) => visibleName(t.name));
    expect(namesOf(hiding)).toHaveLength(3);
    expect(namesOf(hiding).filter((n) => !visibleName(n))).toEqual([]);
    const catalog = snap.catalog ?? snap.tools;
    const github = catalog.filter((t) => !visibleName(t.name)).length;
    expect(github).toBeGreaterThan(0);
    expect((hiding.structuredContent as JsonObject).total).toBe(catalog.length - github);
  });

  it('answers bad arguments with a tool error that says what to pass', () => {
    expect(calls.search(snap, profile.toolSearch!, {})).toMatchObject({ isError: true });
    const bad = calls.search(snap, profile.toolSearch!, { query: 'x', limit: 0 });
    expect(JSON.stringify(bad)).toMatch(/limit.*1 to 50/);
    expect(calls.target({ arguments: {} })).toHaveProperty('error');
    expect(calls.target({ name: CALL_TOOL })).toHaveProperty('error');
    expect(calls.target({ name: 'github__create_issue', arguments: { title: 't' } })).toEqual({
      target: { name: 'github__create_issue', arguments: { title: 't' } },
    });
  });

  it('reports a pinned name that matches nothing', () => {
    const p = catalogProfile(100, ['nope__*']);
    const s = buildToolSnapshot(p.profile, (x) => x, p.byServer);
    expect(s.problems?.map((x) => x.message).join('\n')).toMatch(/toolSearch.pinned pattern "nope__\*" matches no exposed tool/);
  });
});
