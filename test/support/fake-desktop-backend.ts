import { BridgeError } from '../../internal/contract/desktop-bridge/errors.js';
import { axRole, fingerprintOf } from '../../internal/desktop-host/domain/selector.js';
import type {
  ApplicationSummary,
  DesktopBackend,
  DoctorReport,
  InputPlace,
  Route,
  TreeBounds,
  TreeNode,
  TreeSnapshot,
  TypedCheck,
} from '../../internal/contract/desktop-bridge/types.js';

/** A 1×1 PNG, so evidence files are real images. */
const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

interface FakeNode {
  id: string;
  role: string;
  name: string | null;
  value?: string;
  actions?: string[];
  children?: string[];
}

/**
 * An in-memory desktop for unit tests of the host core: one app "fake-app" with a button that counts
 * presses into a label, an entry, and optional late elements (for waitUntil). Records every side effect.
 */
export class FakeDesktopBackend implements DesktopBackend {
  readonly platform = 'fake';
  readonly pressed: string[] = [];
  readonly typed: { elementId?: string; text: string }[] = [];
  readonly keys: string[][] = [];
  /** Every side effect in order. */
  readonly log: string[] = [];
  snapshots = 0;
  /** Make the next snapshot calls wait on this (to hold an execution in flight). */
  gate: Promise<void> | undefined;
  /** Runs before each tree walk (e.g. to move a fake clock: a slow desktop). */
  beforeWalk: () => void = () => undefined;
  private count = 0;
  private readonly nodes = new Map<string, FakeNode>();

  constructor(private readonly now: () => number = Date.now) {
    this.put({ id: ':1.9/app', role: 'application', name: 'fake-app', children: [':1.9/win'] });
    this.put({ id: ':1.9/win', role: 'frame', name: 'Fake Window', children: [':1.9/label', ':1.9/button', ':1.9/entry'] });
    this.put({ id: ':1.9/label', role: 'label', name: 'count: 0', value: 'count: 0' });
    this.put({ id: ':1.9/button', role: 'push button', name: 'Increment', actions: ['Click'] });
    this.put({ id: ':1.9/entry', role: 'text', name: null, value: '' });
  }

  private put(n: FakeNode): void {
    this.nodes.set(n.id, n);
  }

  /** Adds a labelled node under the window (e.g. something waitUntil waits for). */
  addLabel(id: string, text: string): void {
    this.put({ id, role: 'label', name: text, value: text });
    this.nodes.get(':1.9/win')!.children!.push(id);
  }

  async doctor(): Promise<DoctorReport> {
    return {
      platform: 'fake',
      permissions: { accessibility: { granted: true, required: true, purpose: 'fake tree' } },
      issues: [],
      healthy: true,
    };
  }

  async applications(): Promise<ApplicationSummary[]> {
    return [{ name: 'fake-app', pid: 4242, elementId: ':1.9/app', windows: ['Fake Window'] }];
  }

  async snapshot(route: Route | undefined, bounds: TreeBounds): Promise<TreeSnapshot> {
    this.snapshots++;
    if (this.gate) await this.gate;
    if (route?.app?.name !== undefined && route.app.name !== 'fake-app') throw new Error(`no app ${route.app.name}`);
    const out: TreeNode[] = [];
    let truncatedBy: TreeSnapshot['truncatedBy'];
    this.beforeWalk();
    const walk = (id: string, depth: number): void => {
      if (this.now() >= bounds.deadlineMs) return void (truncatedBy = 'deadline');
      if (out.length >= bounds.maxNodes) return void (truncatedBy = 'nodes');
      if (depth >= bounds.maxDepth) return void (truncatedBy = 'depth');
      const n = this.nodes.get(id)!;
      const frame = { x: 10, y: 10 + out.length * 30, width: 100, height: 24 };
      const role = axRole(n.role);
      out.push({
        elementId: n.id,
        fingerprint: fingerprintOf(role, n.name, frame),
        role,
        nativeRole: n.role,
        title: n.name,
        value: n.value ?? null,
        frame,
        actions: n.actions ?? [],
        depth,
        children: n.children ?? [],
      });
      for (const c of n.children ?? []) walk(c, depth + 1);
    };
    walk(':1.9/app', 0);
    return {
      app: { name: 'fake-app', pid: 4242, elementId: ':1.9/app' },
      windowTitle: 'Fake Window',
      nodes: out,
      truncated: truncatedBy !== undefined,
      ...(truncatedBy ? { truncatedBy } : {}),
    };
  }

  async place(elementId: string | undefined, route: Route | undefined): Promise<InputPlace> {
    if (elementId !== undefined && !this.nodes.has(elementId)) {
      throw new BridgeError('DESKTOP_ELEMENT_NOT_FOUND', `element ${elementId} is gone`, { elementId, reason: 'stale' });
    }
    if (route?.app?.name !== undefined && route.app.name !== 'fake-app' && elementId === undefined)
      throw new Error(`no app ${route.app.name}`);
    return { app: { name: 'fake-app', pid: 4242 }, windowTitle: 'Fake Window', ...(elementId ? { elementId } : {}) };
  }

  async press(elementId: string): Promise<boolean> {
    const n = this.nodes.get(elementId);
    if (!n) throw new Error(`no element ${elementId}`);
    if (!n.actions?.length) return false;
    this.pressed.push(elementId);
    this.log.push(`press:${elementId}`);
    const label = this.nodes.get(':1.9/label')!;
    label.name = label.value = `count: ${++this.count}`;
    return true;
  }

  async typeText(elementId: string | undefined, text: string, _route?: Route, opts: { clearBefore?: boolean } = {}): Promise<TypedCheck> {
    this.typed.push({ elementId, text });
    this.log.push(`type:${elementId ?? ''}`);
    if (!elementId) return { verified: false, reason: 'the fake has no focused field' };
    const node = this.nodes.get(elementId)!;
    node.value = (opts.clearBefore ? '' : node.value) + text;
    return { verified: true };
  }

  async key(keys: string[]): Promise<void> {
    this.keys.push(keys);
    this.log.push(`key:${keys.join('+')}`);
  }

  /** Set to make the next screenshots fail (observe still returns the tree). */
  screenshotError: Error | undefined;

  async screenshot(): Promise<{ png: Buffer; width: number; height: number }> {
    if (this.screenshotError) throw this.screenshotError;
    return { png: PNG_1X1, width: 1, height: 1 };
  }

  async close(): Promise<void> {}
}
