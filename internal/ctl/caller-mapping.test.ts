import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mapCaller } from './caller-mapping.js';

describe('mapCaller', () => {
  it('turns a flow-style `callers: {}` into one caller per line, keeping the comment', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcpd-callers-'));
    try {
      await writeFile(join(dir, 'callers.yaml'), '# who gets which profile\ncallers: {}\n');
      expect(await mapCaller(dir, 'claude-desktop', 'claude-desktop')).toEqual({ kind: 'added' });
      expect(await mapCaller(dir, 'cursor', 'cursor')).toEqual({ kind: 'added' });
      expect(await readFile(join(dir, 'callers.yaml'), 'utf8')).toBe(
        '# who gets which profile\ncallers:\n  claude-desktop: claude-desktop\n  cursor: cursor\n',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
