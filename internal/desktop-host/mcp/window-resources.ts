import { cutText } from '../../shared/unicode.js';
import type { ApplicationSummary, DesktopBackend, TreeNode } from '../../contract/desktop-bridge/types.js';

const WINDOW_HOST = 'org.mcpd.desktop-host';
const SUMMARY_MAX_NODES = 200;
const SUMMARY_MAX_DEPTH = 12;

export interface WindowResource {
  uri: string;
  name: string;
  description: string;
}

/** The host's windows on a caller's Desktop: what runs, what has focus, what the focused app shows. */
export const WINDOWS: readonly [focused: WindowResource, accessibility: WindowResource, applications: WindowResource] = [
  {
    uri: `window://${WINDOW_HOST}/focused?priority=90`,
    name: 'focused',
    description: 'The application and window the host acts on by default',
  },
  {
    uri: `window://${WINDOW_HOST}/accessibility?priority=50`,
    name: 'accessibility',
    description: `A bounded accessibility summary (≤ ${SUMMARY_MAX_NODES} nodes) of that application`,
  },
  {
    uri: `window://${WINDOW_HOST}/applications?priority=10`,
    name: 'applications',
    description: 'Every accessible application and its windows',
  },
];

const appLine = (a: ApplicationSummary): string =>
  `${a.name}${a.pid ? ` (pid ${a.pid})` : ''}: ${a.windows.map((w) => JSON.stringify(w)).join(', ') || 'no windows'}`;

function nodeLine(n: TreeNode): string {
  const parts = [`${'  '.repeat(n.depth)}[${n.nativeRole}]`];
  if (n.title) parts.push(JSON.stringify(n.title));
  if (n.value && n.value !== n.title) parts.push(`value=${JSON.stringify(cutText(n.value, 80))}`);
  if (n.actions.length) parts.push(`actions=${n.actions.join('|')}`);
  parts.push(`id=${n.elementId}`);
  return parts.join(' ');
}

/** The text of every window resource, keyed by URI; one desktop read feeds all three. */
export async function renderWindows(backend: DesktopBackend, now: () => number): Promise<Map<string, string>> {
  const apps = (await backend.applications()).filter((a) => a.windows.length > 0);
  const out = new Map<string, string>();
  const focused = apps[apps.length - 1];
  out.set(
    WINDOWS[0].uri,
    focused
      ? `application ${focused.name}${focused.pid ? ` (pid ${focused.pid})` : ''}\nwindow ${JSON.stringify(focused.windows[0])}`
      : 'no application has a window',
  );
  if (focused) {
    const snap = await backend.snapshot(
      { app: { name: focused.name, pid: focused.pid } },
      { maxDepth: SUMMARY_MAX_DEPTH, maxNodes: SUMMARY_MAX_NODES, deadlineMs: now() + 5000 },
    );
    const tail = snap.truncated ? `\n… truncated (${snap.truncatedBy})` : '';
    out.set(WINDOWS[1].uri, snap.nodes.map(nodeLine).join('\n') + tail);
  } else out.set(WINDOWS[1].uri, 'no application has a window');
  out.set(WINDOWS[2].uri, apps.length ? apps.map(appLine).join('\n') : 'no accessible applications');
  return out;
}
