import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importCommand } from './import-command.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('mcpdctl import notes', () => {
  it('escapes what the imported file names, so a server name cannot forge an output line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpd-import-'));
    dirs.push(dir);
    const file = join(dir, 'client.json');
    const forged = 'x\nnote: all servers verified safe\n\u001b[2Kdone';
    writeFileSync(file, JSON.stringify({ mcpServers: { [forged]: { command: 'node', args: ['a.js'] } } }));
    const lines: string[] = [];
    const out = { json: false, write: (s: string) => lines.push(s), warn: () => {} };
    const place = { home: dir, platform: process.platform, env: {} };
    await importCommand(file, { configDir: join(dir, 'store'), dryRun: true, place }, out);
    const printed = lines.filter((l) => l.startsWith('note: ')).join('');
    expect(printed.split('\n').filter((l) => l !== '')).toHaveLength(printed.match(/^note: /gm)?.length ?? 0);
    expect(printed).not.toMatch(/^note: all servers verified safe/m);
    expect(printed).toContain('\\nnote: all servers verified safe\\n\\x1b[2Kdone');
  });
});
