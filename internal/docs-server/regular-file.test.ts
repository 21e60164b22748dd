import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRegularFile } from './regular-file.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpd-regular-file-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('openRegularFile', () => {
  it('opens the real path it is given', async () => {
    mkdirSync(join(scratch, 'served'));
    writeFileSync(join(scratch, 'served/ok.md'), 'fine');
    const f = await openRegularFile(join(scratch, 'served/ok.md'));
    expect(Buffer.from(await f.read()).toString()).toBe('fine');
    await f.close();
  });

  it('refuses a path whose folder is a link elsewhere (the check covers every component, not the last one)', async () => {
    mkdirSync(join(scratch, 'outside'));
    writeFileSync(join(scratch, 'outside/secret.md'), 'PRIVATE');
    mkdirSync(join(scratch, 'served2'));
    symlinkSync(join(scratch, 'outside'), join(scratch, 'served2/docs'));
    await expect(openRegularFile(join(scratch, 'served2/docs/secret.md'))).rejects.toThrow(
      /resolved to .*outside\/secret\.md when opened, not .*served2\/docs\/secret\.md/,
    );
  });
});
