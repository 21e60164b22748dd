import { describe, expect, it } from 'vitest';
import { specFingerprint } from './fingerprint.js';
import { SPEC_DEFAULTS, type ServerSpec } from './spec.js';

function base(): ServerSpec {
  return {
    name: 'a',
    transport: 'stdio',
    cmd: ['node', 'server.js', '--flag'],
    env: { A: '1', B: '2' },
    cwd: '/srv',
    headers: {},
    disabled: false,
    exposeTools: ['x', 'y'],
    forbiddenTools: ['z'],
    toolMeta: { x: { alias: 'ex', tags: ['t1', 't2'], autoApply: true } },
    defaultToolMeta: { tags: ['d'] },
    ...SPEC_DEFAULTS,
  };
}

/** One mutation per ServerSpec field except name and sandboxOptOut; each must change the fingerprint. */
const mutations: Record<Exclude<keyof ServerSpec, 'name' | 'sandboxOptOut'>, (s: ServerSpec) => void> = {
  transport: (s) => {
    s.transport = 'sse';
  },
  cmd: (s) => {
    s.cmd = ['node', 'server.js', '--other'];
  },
  env: (s) => {
    s.env = { ...s.env, C: '3' };
  },
  cwd: (s) => {
    s.cwd = '/other';
  },
  url: (s) => {
    s.url = 'http://localhost:1/mcp';
  },
  headers: (s) => {
    s.headers = { Authorization: 'x' };
  },
  oauth: (s) => {
    s.oauth = { clientId: 'pre-registered' };
  },
  disabled: (s) => {
    s.disabled = true;
  },
  sandbox: (s) => {
    s.sandbox = { read: [], write: [], allow: [] };
  },
  unavailable: (s) => {
    s.unavailable = 'environment variable "X" is not set';
  },
  exposeTools: (s) => {
    s.exposeTools = ['x'];
  },
  forbiddenTools: (s) => {
    s.forbiddenTools = [];
  },
  toolMeta: (s) => {
    s.toolMeta = { x: { alias: 'other', tags: ['t1', 't2'], autoApply: true } };
  },
  defaultToolMeta: (s) => {
    s.defaultToolMeta = undefined;
  },
  strategy: (s) => {
    s.strategy = 'stateful';
  },
  maxConcurrent: (s) => {
    s.maxConcurrent += 1;
  },
  maxInstances: (s) => {
    s.maxInstances += 1;
  },
  minReady: (s) => {
    s.minReady += 1;
  },
  idleSeconds: (s) => {
    s.idleSeconds += 1;
  },
  activationMode: (s) => {
    s.activationMode = 'always-on';
  },
  sessionTTLSeconds: (s) => {
    s.sessionTTLSeconds += 1;
  },
  drainTimeoutSeconds: (s) => {
    s.drainTimeoutSeconds += 1;
  },
  callTimeoutSeconds: (s) => {
    s.callTimeoutSeconds += 1;
  },
};

describe('specFingerprint', () => {
  it('is a sha-256 hex digest', () => {
    expect(specFingerprint(base())).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores sandbox: false as written (display only: nothing else runs differently)', () => {
    expect(specFingerprint({ ...base(), sandboxOptOut: true })).toBe(specFingerprint(base()));
  });

  it('ignores the name', () => {
    const other = { ...base(), name: 'completely-different' };
    expect(specFingerprint(other)).toBe(specFingerprint(base()));
  });

  for (const [field, mutate] of Object.entries(mutations)) {
    it(`changes when ${field} changes`, () => {
      const s = base();
      mutate(s);
      expect(specFingerprint(s)).not.toBe(specFingerprint(base()));
    });
  }

  it('ignores env and headers key order', () => {
    const a = { ...base(), env: { A: '1', B: '2' }, headers: { X: '1', Y: '2' } };
    const b = { ...base(), env: { B: '2', A: '1' }, headers: { Y: '2', X: '1' } };
    expect(specFingerprint(a)).toBe(specFingerprint(b));
  });

  it('treats exposeTools, forbiddenTools and tags as sets', () => {
    const a = base();
    const b = {
      ...base(),
      exposeTools: ['y', 'x', 'x'],
      forbiddenTools: ['z'],
      toolMeta: { x: { autoApply: true, tags: ['t2', 't1'], alias: 'ex' } },
    };
    expect(specFingerprint(b)).toBe(specFingerprint(a));
  });

  it('keeps cmd order significant', () => {
    const b = { ...base(), cmd: ['node', '--flag', 'server.js'] };
    expect(specFingerprint(b)).not.toBe(specFingerprint(base()));
  });

  it('distinguishes "all tools" (undefined) from "no tools" ([])', () => {
    const all = { ...base(), exposeTools: undefined };
    const none = { ...base(), exposeTools: [] };
    expect(specFingerprint(all)).not.toBe(specFingerprint(none));
  });

  it('omits undefined fields', () => {
    const a = { ...base(), url: undefined };
    const { url: _u, ...b } = base();
    expect(specFingerprint(a)).toBe(specFingerprint(b as ServerSpec));
  });
});
