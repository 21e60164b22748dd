import { axRole, fingerprintOf } from '../domain/selector.js';
import type { Frame, TreeBounds, TreeNode, TreeSnapshot } from '../../contract/desktop-bridge/types.js';
import { idOf, type AtspiBus, type NodeAddr } from './atspi-bus.js';

const I = {
  accessible: 'org.a11y.atspi.Accessible',
  component: 'org.a11y.atspi.Component',
  text: 'org.a11y.atspi.Text',
  action: 'org.a11y.atspi.Action',
};
const COORD_SCREEN = 0;
const MAX_TEXT = 4096;

/** Everything the host reports about one node, fetched with parallel calls. */
async function readNode(bus: AtspiBus, a: NodeAddr, depth: number): Promise<TreeNode & { addr: NodeAddr; childAddrs: NodeAddr[] }> {
  const [roleName, ifaces, name, childAddrs] = await Promise.all([
    bus.call(a, I.accessible, 'GetRoleName').then((b) => String(b[0] ?? '')),
    bus.call(a, I.accessible, 'GetInterfaces').then((b) => (b[0] as string[] | undefined) ?? []),
    bus.prop(a, I.accessible, 'Name').then((v) => (typeof v === 'string' ? v : '')),
    bus.children(a),
  ]);
  const [frame, text, actions] = await Promise.all([
    ifaces.includes(I.component) ? extents(bus, a) : Promise.resolve(null),
    ifaces.includes(I.text) ? textOf(bus, a) : Promise.resolve<{ value: string | null; length?: number }>({ value: null }),
    ifaces.includes(I.action) ? actionsOf(bus, a) : Promise.resolve([] as string[]),
  ]);
  const role = axRole(roleName);
  const title = name === '' ? null : name;
  return {
    addr: a,
    childAddrs,
    elementId: idOf(a),
    fingerprint: fingerprintOf(role, title, frame),
    role,
    nativeRole: roleName,
    title,
    value: text.value,
    // A cut value says so: an agent must not take the first 4096 characters for the whole text.
    ...(text.length !== undefined ? { valueTruncated: true, valueLength: text.length } : {}),
    frame,
    actions,
    depth,
    children: childAddrs.map(idOf),
  };
}

async function extents(bus: AtspiBus, a: NodeAddr): Promise<Frame | null> {
  const [e] = await bus.call(a, I.component, 'GetExtents', 'u', [COORD_SCREEN]);
  const [x, y, width, height] = (e as number[] | undefined) ?? [];
  // GetExtents answers all four or fails; anything else is no frame rather than a half one.
  return x !== undefined && y !== undefined && width !== undefined && height !== undefined ? { x, y, width, height } : null;
}

/** The text, at most MAX_TEXT characters; `length` is the whole text's when it was cut. */
async function textOf(bus: AtspiBus, a: NodeAddr): Promise<{ value: string | null; length?: number }> {
  const count = Number(await bus.prop(a, I.text, 'CharacterCount'));
  if (!Number.isFinite(count) || count <= 0) return { value: '' };
  const [t] = await bus.call(a, I.text, 'GetText', 'ii', [0, Math.min(count, MAX_TEXT)]);
  return { value: typeof t === 'string' ? t : null, ...(count > MAX_TEXT ? { length: count } : {}) };
}

/** Action names; GetActions gives localized ones ("Click"), so matching elsewhere is case-insensitive. */
export async function actionsOf(bus: AtspiBus, a: NodeAddr): Promise<string[]> {
  const [list] = await bus.call(a, I.action, 'GetActions');
  return ((list as [string, string, string][] | undefined) ?? []).map((x) => x[0]);
}

/**
 * Breadth-first walk from `root`, one level's nodes fetched in parallel, stopping at maxDepth, maxNodes or
 * the deadline and saying which. A node that vanishes mid-walk (widget destroyed) is skipped, not fatal.
 */
export async function walkTree(
  bus: AtspiBus,
  root: NodeAddr,
  bounds: TreeBounds,
  now: () => number,
): Promise<Pick<TreeSnapshot, 'nodes' | 'truncated' | 'truncatedBy'>> {
  const nodes: TreeNode[] = [];
  let level: NodeAddr[] = [root];
  let depth = 0;
  let truncatedBy: TreeSnapshot['truncatedBy'];
  while (level.length > 0) {
    if (now() >= bounds.deadlineMs) {
      truncatedBy = 'deadline';
      break;
    }
    const room = bounds.maxNodes - nodes.length;
    if (level.length > room) {
      truncatedBy = 'nodes';
      level = level.slice(0, room);
    }
    // Ignored: a node that vanished mid-walk (its window closed) is left out, not an error.
    const read = await Promise.all(level.map((a) => readNode(bus, a, depth).catch(() => undefined)));
    const next: NodeAddr[] = [];
    for (const n of read) {
      if (!n) continue;
      const { addr: _a, childAddrs, ...node } = n;
      nodes.push(node);
      next.push(...childAddrs);
    }
    if (truncatedBy) break;
    if (next.length > 0 && depth + 1 >= bounds.maxDepth) {
      truncatedBy = 'depth';
      break;
    }
    level = next;
    depth++;
  }
  return { nodes, truncated: truncatedBy !== undefined, ...(truncatedBy ? { truncatedBy } : {}) };
}
