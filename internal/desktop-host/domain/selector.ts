import type { ElementRef, Frame, Selector, TreeNode } from '../../contract/desktop-bridge/types.js';

/** AT-SPI role names → the contract's AX role names, so a macOS-style selector works on Linux too. */
const AX_ROLES: Readonly<Record<string, string>> = {
  'push button': 'AXButton',
  'toggle button': 'AXCheckBox',
  'check box': 'AXCheckBox',
  'radio button': 'AXRadioButton',
  label: 'AXStaticText',
  text: 'AXTextField',
  entry: 'AXTextField',
  'password text': 'AXTextField',
  frame: 'AXWindow',
  window: 'AXWindow',
  dialog: 'AXWindow',
  application: 'AXApplication',
  'menu bar': 'AXMenuBar',
  menu: 'AXMenu',
  'menu item': 'AXMenuItem',
  'combo box': 'AXComboBox',
  slider: 'AXSlider',
  'scroll bar': 'AXScrollBar',
  'page tab': 'AXTab',
  'page tab list': 'AXTabGroup',
  table: 'AXTable',
  'tree table': 'AXOutline',
  image: 'AXImage',
  link: 'AXLink',
  'spin button': 'AXIncrementor',
  'progress bar': 'AXProgressIndicator',
  filler: 'AXGroup',
  panel: 'AXGroup',
};

export function axRole(nativeRole: string): string {
  return AX_ROLES[nativeRole] ?? `AX:${nativeRole}`;
}

/** `role|title|x=,y=,w=,h=` as the contract shows: enough to notice a stale elementRef. */
export function fingerprintOf(role: string, title: string | null, frame: Frame | null): string {
  const f = frame ? `x=${frame.x},y=${frame.y},w=${frame.width},h=${frame.height}` : 'x=?,y=?,w=?,h=?';
  return `${role}|${title ?? ''}|${f}`;
}

/** byRole matches the contract role (AXButton) or the native one (push button), exactly. */
function matches(node: TreeNode, sel: Selector): boolean {
  if (sel.byRole !== undefined && sel.byRole !== node.role && sel.byRole !== node.nativeRole) return false;
  if (sel.titleContains !== undefined && !(node.title ?? '').includes(sel.titleContains)) return false;
  if (sel.valueContains !== undefined && !(node.value ?? '').includes(sel.valueContains)) return false;
  return true;
}

const DEFAULT_FIND_LIMIT = 10;

export function findIn(nodes: readonly TreeNode[], sel: Selector): { refs: ElementRef[]; matched: number } {
  const hits = nodes.filter((n) => matches(n, sel));
  const limit = sel.limit ?? DEFAULT_FIND_LIMIT;
  return { refs: hits.slice(0, limit).map(toRef), matched: hits.length };
}

function toRef(n: ElementRef): ElementRef {
  const cut = n.valueTruncated ? { valueTruncated: n.valueTruncated, valueLength: n.valueLength } : {};
  return { elementId: n.elementId, fingerprint: n.fingerprint, role: n.role, title: n.title, value: n.value, ...cut, frame: n.frame };
}
