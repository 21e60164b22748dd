import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue, type ConfigIssue } from '../shared/errors.js';
import { DEFAULT_AUDIT } from '../contract/model/audit-settings.js';
import { auditOfStore } from './audit-location.js';
import { loadStore } from './index.js';
import { store } from '../../test/support/catalog-store.js';

const BASE = { 'profiles/default.yaml': ['servers: []'] };

function where(dir: string, issues: ConfigIssue[]): Array<[string, number, string, string]> {
  return issues.map((i) => [relative(dir, i.file), i.line, i.field, i.message]);
}

describe('runtime.yaml audit:', () => {
  it('is on by default, in the state directory, arguments never in clear', async () => {
    const dir = await store(BASE);
    const r = await loadStore(dir);
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.store.runtime.audit).toEqual(DEFAULT_AUDIT);
    expect(auditOfStore(dir, {})).toEqual({ settings: DEFAULT_AUDIT, file: join(dir, '.mcpd-state', 'audit.jsonl') });
    expect(auditOfStore(dir, { MCPD_STATE_DIR: '/var/lib/mcpd' }).file).toBe('/var/lib/mcpd/audit.jsonl');
  });

  it('reads every key; a relative file is taken from the store; enabled: false turns it off', async () => {
    const dir = await store({
      ...BASE,
      'runtime.yaml': ['audit:', '  file: logs/audit.jsonl', '  arguments: true', '  maxBytes: 65536', '  keep: 2', '  enabled: false'],
    });
    const r = await loadStore(dir);
    if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
    expect(r.store.runtime.audit).toEqual({
      enabled: false,
      file: join(dir, 'logs/audit.jsonl'),
      arguments: true,
      maxBytes: 65536,
      keep: 2,
    });
    expect(auditOfStore(dir, {}).file).toBe(join(dir, 'logs/audit.jsonl'));
  });

  it('reports each bad value with its file, line and field, and what to do', async () => {
    const dir = await store({
      ...BASE,
      'runtime.yaml': ['metricsAddress: ""', 'audit:', '  enabled: "yes"', '  maxBytes: 100', '  keep: 0', '  fiel: x.jsonl'],
    });
    const r = await loadStore(dir);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(where(dir, r.issues)).toEqual([
      ['runtime.yaml', 3, 'audit.enabled', 'must be true or false, got the string "yes"'],
      ['runtime.yaml', 4, 'audit.maxBytes', expect.stringMatching(/4096/)],
      ['runtime.yaml', 5, 'audit.keep', expect.stringMatching(/1/)],
      ['runtime.yaml', 6, 'audit.fiel', 'unknown key "fiel" in audit'],
    ]);
    expect(r.issues[3]?.hint).toBe('did you mean "file"?');
    // mcpdctl audit refuses to guess where a log is that the core would not start with.
    expect(() => auditOfStore(dir, {})).toThrow(/runtime\.yaml:3(:\d+)?: audit\.enabled: must be true or false/);
  });
});
