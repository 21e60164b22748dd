import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ctl, removeHomes, tempHome, writeAt } from '../support/client-home.js';

afterEach(removeHomes);

const VSCODE = `{
  "inputs": [
    { "id": "github-pat", "type": "promptString", "description": "GitHub token", "password": true },
    { "id": "region", "type": "pickString", "options": ["eu", "us"], "default": "eu" }
  ],
  "servers": {
    "github": { "type": "http", "url": "https://api.example.com/mcp", "headers": { "Authorization": "Bearer \${input:github-pat}" } },
    "search": { "command": "search-server", "args": ["--region", "\${input:region}"], "env": { "API_KEY": "\${env:SEARCH_API_KEY}" } }
  }
}
`;

const VARIABLE_LINE =
  "set SEARCH_API_KEY in mcpd's environment (or give a fallback: ${NAME:-value}): until then the core leaves this server out (unavailable, with the reason in status)";
const INPUT_LINE =
  "give ${input:github-pat} a value (MCPD_INPUT_GITHUB_PAT in mcpd's environment, inputValues in runtime.yaml, or a default in the profile): until then the core leaves this server out (unavailable, with the reason in status)";

describe('import names the values it still needs, in a dry run too', () => {
  it('--dry-run lists unset variables and inputs without a value (one with a default needs none), and writes nothing', async () => {
    const { home, store } = tempHome();
    writeAt(home, '.config/Code/User/mcp.json', VSCODE);
    const r = await ctl(home, ['import', 'vscode', '--dry-run', '--config', store], ['SEARCH_API_KEY', 'MCPD_INPUT_GITHUB_PAT']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(VARIABLE_LINE);
    expect(r.stdout).toContain(INPUT_LINE);
    expect(r.stdout).not.toContain('input:region} a value');
    expect(existsSync(join(store, 'profiles', 'vscode.yaml'))).toBe(false);
    const json = await ctl(
      home,
      ['--json', 'import', 'vscode', '--dry-run', '--config', store],
      ['SEARCH_API_KEY', 'MCPD_INPUT_GITHUB_PAT'],
    );
    expect(JSON.parse(json.stdout).missing).toEqual({ variables: ['SEARCH_API_KEY'], inputs: ['github-pat'] });
  });

  it('an input given by MCPD_INPUT_* or runtime.yaml inputValues is not asked for; a real import warns like a dry run', async () => {
    const { home, store } = tempHome();
    writeAt(home, '.config/Code/User/mcp.json', VSCODE);
    const byEnv = await ctl(home, ['import', 'vscode', '--dry-run', '--config', store], ['SEARCH_API_KEY'], { MCPD_INPUT_GITHUB_PAT: 't' });
    expect(byEnv.stdout).not.toContain('github-pat} a value');
    writeAt(store, 'runtime.yaml', 'inputValues:\n  github-pat: t\n');
    const byRuntime = await ctl(home, ['import', 'vscode', '--dry-run', '--config', store], ['SEARCH_API_KEY', 'MCPD_INPUT_GITHUB_PAT']);
    expect(byRuntime.stdout).not.toContain('github-pat} a value');
    writeAt(store, 'runtime.yaml', '{}\n');
    const real = await ctl(home, ['import', 'vscode', '--config', store], ['SEARCH_API_KEY', 'MCPD_INPUT_GITHUB_PAT']);
    expect(real.code).toBe(0);
    expect(real.stdout).toContain(VARIABLE_LINE);
    expect(real.stdout).toContain(INPUT_LINE);
  });
});
