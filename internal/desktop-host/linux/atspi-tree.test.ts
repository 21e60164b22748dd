import { describe, expect, it } from 'vitest';
import type { AtspiBus, NodeAddr } from './atspi-bus.js';
import { walkTree } from './atspi-tree.js';

/**
 * A scripted accessibility bus: a root with `width` children per node down to `depth` levels. It answers the
 * same calls the real AT-SPI registry does (the real one is exercised in test/e2e/desktop-bridge-linux).
 */
function scriptedBus(width: number, depth: number, opts: { vanish?: string; onCall?: () => void } = {}): AtspiBus {
  const level = (path: string) => (path === '/root' ? 0 : path.split('/').length - 1);
  const gone = (a: NodeAddr) => {
    opts.onCall?.();
    if (a.path === opts.vanish) throw new Error('org.freedesktop.DBus.Error.UnknownObject');
  };
  return {
    async call(a: NodeAddr, _iface: string, member: string) {
      gone(a);
      if (member === 'GetRoleName') return [level(a.path) === 0 ? 'frame' : 'push button'];
      if (member === 'GetInterfaces') return [['org.a11y.atspi.Accessible', 'org.a11y.atspi.Component', 'org.a11y.atspi.Action']];
      if (member === 'GetExtents') return [[1, 2, 30, 40]];
      if (member === 'GetActions') return [[['Click', '', '']]];
      throw new Error(`unexpected ${member}`);
    },
    async prop(a: NodeAddr) {
      gone(a);
      return `node ${a.path}`;
    },
    async children(a: NodeAddr) {
      gone(a);
      if (level(a.path) >= depth) return [];
      return Array.from({ length: width }, (_, i) => ({ bus: ':1.7', path: `${a.path === '/root' ? '' : a.path}/${i}` }));
    },
  } as unknown as AtspiBus;
}

const root = { bus: ':1.7', path: '/root' };
const far = () => Date.now() + 60_000;

describe('walkTree (bounded breadth-first AT-SPI walk)', () => {
  it('reads every node with role, title, frame, actions, stable id and fingerprint', async () => {
    const r = await walkTree(scriptedBus(2, 2), root, { maxDepth: 10, maxNodes: 100, deadlineMs: far() }, Date.now);
    expect(r.truncated).toBe(false);
    expect(r.nodes).toHaveLength(1 + 2 + 4);
    expect(r.nodes[1]).toEqual({
      elementId: ':1.7/0',
      fingerprint: 'AXButton|node /0|x=1,y=2,w=30,h=40',
      role: 'AXButton',
      nativeRole: 'push button',
      title: 'node /0',
      value: null,
      frame: { x: 1, y: 2, width: 30, height: 40 },
      actions: ['Click'],
      depth: 1,
      children: [':1.7/0/0', ':1.7/0/1'],
    });
  });

  it('stops at maxNodes, maxDepth and the deadline, and says which', async () => {
    const nodes = await walkTree(scriptedBus(3, 4), root, { maxDepth: 10, maxNodes: 5, deadlineMs: far() }, Date.now);
    expect(nodes).toMatchObject({ truncated: true, truncatedBy: 'nodes' });
    expect(nodes.nodes).toHaveLength(5);
    const depth = await walkTree(scriptedBus(3, 4), root, { maxDepth: 2, maxNodes: 1000, deadlineMs: far() }, Date.now);
    expect(depth).toMatchObject({ truncated: true, truncatedBy: 'depth' });
    expect(Math.max(...depth.nodes.map((n) => n.depth))).toBe(1);
    let t = 0;
    const deadline = await walkTree(
      scriptedBus(3, 4, { onCall: () => void (t += 1) }),
      root,
      { maxDepth: 10, maxNodes: 1000, deadlineMs: 20 },
      () => t,
    );
    expect(deadline).toMatchObject({ truncated: true, truncatedBy: 'deadline' });
    expect(deadline.nodes.length).toBeLessThan(1 + 3 + 9 + 27 + 81);
  });

  it('skips a node that vanishes mid-walk (and its subtree) instead of failing', async () => {
    const r = await walkTree(scriptedBus(2, 2, { vanish: '/1' }), root, { maxDepth: 10, maxNodes: 100, deadlineMs: far() }, Date.now);
    expect(r.nodes.map((n) => n.elementId)).toEqual([':1.7/root', ':1.7/0', ':1.7/0/0', ':1.7/0/1']);
  });
});
