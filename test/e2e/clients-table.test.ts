import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { parse as parseJsonc } from 'jsonc-parser';
import { CLIENTS, type ClientName } from '../../internal/ctl/client-configs.js';
import { reserveFor, toolNameRule } from '../../internal/ctl/client-tool-names.js';
import { MCPDMCP, REPO } from '../support/paths.js';
import { ctl, removeHomes, tempHome } from '../support/client-home.js';

afterEach(removeHomes);

const DOC = readFileSync(join(REPO, 'docs/clients.md'), 'utf8');

/** The body rows of the markdown table whose header row starts with `header`, as trimmed cells. */
function tableRows(header: string): string[][] {
  const lines = DOC.split('\n');
  const at = lines.findIndex((l) => l.startsWith(header));
  if (at < 0) throw new Error(`docs/clients.md has no table starting "${header}"`);
  const rows: string[][] = [];
  for (const l of lines.slice(at + 2)) {
    if (!l.startsWith('|')) break;
    rows.push(
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** Display name → mcpdctl name, from the table of where each client keeps its configuration. */
const NAMES = new Map(tableRows('| client | `mcpdctl` name |').map(([display = '', name = '']) => [display, name.replace(/`/g, '')]));

interface Row {
  display: string;
  client: ClientName;
  transport: string;
  table: string;
  file: string;
  keys: Record<string, string | true>;
  prefix: string | undefined;
  limit: number;
  prefixLength: number;
  reserve: number;
}

/** `mcpServers.mcpd` in `x.json` (JSONC): `type` = `stdio`, `command`, `args` — and the budget cell `64 − 11 → 11`. */
function parseRow([display = '', transport = '', writes = '', names = '', budget = '']: string[]): Row {
  const w = /^`\[?(\w+)\.mcpd\]?` in `([^`]+)`(?: \([A-Z]+\))?: (.+)$/.exec(writes);
  if (!w) throw new Error(`cannot read "what connect writes" of ${display}: ${writes}`);
  const keys: Record<string, string | true> = {};
  for (const part of (w[3] ?? '').split(', ')) {
    const kv = /^`(\w+)`(?: = `([^`]+)`)?$/.exec(part);
    if (!kv?.[1]) throw new Error(`cannot read the key "${part}" of ${display}`);
    keys[kv[1]] = kv[2] ?? true;
  }
  const b = /^(\d+)(?: − (\d+))? → (\d+)$/.exec(budget);
  if (!b) throw new Error(`cannot read the budget of ${display}: ${budget}`);
  const client = NAMES.get(display) as ClientName;
  return {
    display,
    client,
    transport,
    table: w[1] ?? '',
    file: w[2] ?? '',
    keys,
    prefix: /^`(.+)`$/.exec(names)?.[1],
    limit: Number(b[1]),
    prefixLength: Number(b[2] ?? 0),
    reserve: Number(b[3]),
  };
}

const ROWS = tableRows('| client | transport | what `connect` writes |').map(parseRow);

describe('docs/clients.md’s client table is what connect does', () => {
  it('has one row per client mcpdctl knows', () => {
    expect(ROWS.map((r) => r.client).sort()).toEqual([...CLIENTS].sort());
  });

  it.each(ROWS.map((r) => [r.display, r] as const))('%s: the entry connect writes, its prefix and its budget', async (_, row) => {
    const { home, store } = tempHome();
    const r = await ctl(home, ['connect', row.client, '--config', store]);
    expect(r.code, r.stderr).toBe(0);
    const path = /^connected: (.+)$/m.exec(r.stdout)?.[1] ?? '';
    expect(basename(path)).toBe(row.file);
    const text = readFileSync(path, 'utf8');
    const doc = (path.endsWith('.toml') ? parseToml(text) : parseJsonc(text)) as Record<string, Record<string, Record<string, unknown>>>;
    const entry = doc[row.table]?.mcpd ?? {};
    // Exactly the keys the row names, with the values it gives.
    expect(Object.keys(entry).sort()).toEqual(Object.keys(row.keys).sort());
    for (const [k, v] of Object.entries(row.keys)) if (v !== true) expect(entry[k]).toBe(v);
    // stdio: the client starts node on this installation's gateway for the caller and store.
    expect(row.transport).toBe('stdio');
    expect(entry.command).toBe(process.execPath);
    expect(entry.args).toEqual([MCPDMCP, row.client, '--config', store]);
    // The prefix and the budget are the ones connect works with.
    const rule = toolNameRule(row.client);
    expect(row.prefix).toBe(rule ? `${rule.prefix('mcpd')}<tool>` : undefined);
    expect(row.limit).toBe(rule?.limit ?? 64);
    expect(row.prefixLength).toBe(rule?.prefix('mcpd').length ?? 0);
    expect(row.reserve).toBe(Math.max(0, 64 - (row.limit - row.prefixLength)));
    expect(row.reserve).toBe(rule ? reserveFor(rule, 'mcpd', 64) : 0);
    // …and the reserve connect writes for the caller.
    // A client without a prefix rule gets nothing written there (not even a callers.yaml).
    const file = join(store, 'callers.yaml');
    const callers = (existsSync(file) ? parseYaml(readFileSync(file, 'utf8')) : {}) as { callers?: Record<string, unknown> };
    const mapped = callers.callers?.[row.client] as { reserve?: number } | undefined;
    expect(mapped?.reserve ?? 0).toBe(row.reserve);
  });
});
