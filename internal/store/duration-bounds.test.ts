import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_DURATION_SECONDS } from '../shared/timer-limit.js';
import { loadStore } from './index.js';
import { store } from '../../test/support/catalog-store.js';

describe('durations of the store are bounded by the longest timer Node can run', () => {
  it('rejects a callTimeoutSeconds beyond the bound, with file, line and field', async () => {
    const dir = await store({
      'profiles/default.yaml': [
        'servers:', //                        1
        '  - name: slow', //                  2
        '    cmd: [node, x.js]', //           3
        '    callTimeoutSeconds: 3000000', // 4
        '    idleSeconds: 99999999', //       5
      ],
      'runtime.yaml': ['poolWaitSeconds: 1e9', 'snapshotRetentionSeconds: 2147484'],
    });
    const r = await loadStore(dir, { env: {} });
    if (r.ok) throw new Error('should fail');
    const got = r.issues.map((i) => [relative(dir, i.file), i.line, i.field]);
    expect(got).toEqual(
      expect.arrayContaining([
        ['profiles/default.yaml', 4, 'servers[0].callTimeoutSeconds'],
        ['profiles/default.yaml', 5, 'servers[0].idleSeconds'],
        ['runtime.yaml', 1, 'poolWaitSeconds'],
        ['runtime.yaml', 2, 'snapshotRetentionSeconds'],
      ]),
    );
    const call = r.issues.find((i) => i.field === 'servers[0].callTimeoutSeconds');
    expect(call?.message).toBe(`must be ≤ ${MAX_DURATION_SECONDS} (about 24.8 days, the longest timer Node.js can run), got 3000000`);
  });

  it('accepts the bound itself', async () => {
    const dir = await store({
      'profiles/default.yaml': ['servers:', '  - name: slow', '    cmd: [node, x.js]', `    callTimeoutSeconds: ${MAX_DURATION_SECONDS}`],
    });
    const r = await loadStore(dir, { env: {} });
    expect(r.ok).toBe(true);
  });
});
