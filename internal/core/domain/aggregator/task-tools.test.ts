import { describe, expect, it } from 'vitest';
import { buildToolSnapshot } from './tool-snapshot.js';
import { profile, spec, tool } from '../../../../test/support/aggregator.js';

const fp = (s: string) => `fp-${s}`;

describe('taskTools: tools a profile entry runs as hosted tasks', () => {
  it('marks the matching tools execution.taskSupport optional, keeps a tool’s own declaration, reports a pattern matching nothing', () => {
    const own = { ...tool('own_task'), definition: { ...tool('own_task').definition, execution: { taskSupport: 'required' } } };
    const p = profile([spec('gh', { taskTools: ['slow_*', 'own_task', 'nothing_*'] })]);
    const s = buildToolSnapshot(p, fp, new Map([['gh', [tool('slow_build'), tool('quick'), own]]]));
    const execution = Object.fromEntries(s.tools.map((t) => [t.name, t.definition.execution]));
    expect(execution).toEqual({
      gh__slow_build: { taskSupport: 'optional' },
      gh__quick: undefined,
      gh__own_task: { taskSupport: 'required' },
    });
    expect(s.problems?.map((x) => x.message)).toEqual([
      'taskTools pattern "nothing_*" matches none of the 3 tools of server "gh"; check the pattern',
    ]);
  });
});
