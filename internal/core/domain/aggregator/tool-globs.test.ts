import { describe, expect, it } from 'vitest';
import { namePattern } from '../tool-glob.js';
import { buildToolSnapshot } from './tool-snapshot.js';
import { profile, spec, tool } from '../../../../test/support/aggregator.js';

const fp = (s: string) => `fp-${s}`;
const tools = ['get_issue', 'get_pull_request', 'list_issues', 'delete_issue', 'delete_repo', 'search_code'].map((n) => tool(n));

describe('globs in exposeTools / forbiddenTools', () => {
  it('matches * and ? and treats everything else literally', () => {
    expect(namePattern('get_*').test('get_issue')).toBe(true);
    expect(namePattern('get_*').test('forget_issue')).toBe(false);
    expect(namePattern('list_issue?').test('list_issues')).toBe(true);
    expect(namePattern('a.b').test('axb')).toBe(false);
    expect(namePattern('a.b').isGlob).toBe(false);
  });

  it('keeps what the allow-list globs match, minus what the forbidden globs match', () => {
    const p = profile([spec('gh', { exposeTools: ['get_*', 'delete_*', 'search_code'], forbiddenTools: ['delete_r*'] })]);
    const s = buildToolSnapshot(p, fp, new Map([['gh', tools]]));
    expect(s.tools.map((t) => t.name)).toEqual(['gh__delete_issue', 'gh__get_issue', 'gh__get_pull_request', 'gh__search_code']);
    expect(s.problems).toEqual([]);
  });

  it('reports a pattern that matches no tool', () => {
    const p = profile([spec('gh', { exposeTools: ['get_*', 'merge_*'] })]);
    const s = buildToolSnapshot(p, fp, new Map([['gh', tools]]));
    expect(s.problems?.map((x) => x.message)).toEqual([
      'exposeTools pattern "merge_*" matches none of the 6 tools of server "gh"; check the pattern',
    ]);
  });

  it('namespace.reserve keeps room for the client prefix: names fit maxLength - reserve', () => {
    const long = tool('create_a_pull_request_review_comment_reply_with_suggestions');
    const p = profile([spec('github_enterprise', {})], { mode: 'prefix', separator: '__', maxLength: 64, reserve: 20 });
    const s = buildToolSnapshot(p, fp, new Map([['github_enterprise', [long, tool('get_me')]]]));
    for (const t of s.tools) expect(t.name.length).toBeLessThanOrEqual(44);
    expect(s.tools.map((t) => t.name)).toContain('github_enterprise__get_me');
    // What Claude Code would show, mcp__mcpd__<name>, stays within 64 characters.
    expect(Math.max(...s.tools.map((t) => `mcp__mcpd__${t.name}`.length))).toBeLessThanOrEqual(64);
  });
});
