import type { InputPlace } from '../../contract/desktop-bridge/types.js';

/** The MCP face's tools: flat, model-friendly arguments mapped onto contract params. */

const selectorProps = {
  role: { type: 'string', description: 'Role, exactly: contract name (AXButton) or AT-SPI name (push button)' },
  title: { type: 'string', description: 'Substring of the accessible name' },
  value: { type: 'string', description: 'Substring of the text value' },
  app: { type: 'string', description: 'Application name (route); default: the most recent application with a window' },
};
const targetProps = {
  ...selectorProps,
  elementId: { type: 'string', description: 'An elementId returned by desktop_find (takes precedence over the selector)' },
};

/**
 * Reads are marked read-only: behind mcpd they may run while a side effect's question waits for its user
 * (the core lends that call's slot to read-only tools), so one unanswered question does not starve them.
 */
const READS = { readOnlyHint: true, openWorldHint: false } as const;
const ACTS = { readOnlyHint: false, destructiveHint: true, openWorldHint: false } as const;

export const TOOLS = [
  {
    name: 'desktop_observe',
    description: 'Screenshot + accessibility tree of the desktop, written as evidence into the workspace. Read-only.',
    inputSchema: { type: 'object', properties: { app: selectorProps.app, maxNodes: { type: 'integer', minimum: 1 } } },
    annotations: READS,
  },
  {
    name: 'desktop_find',
    description: 'Find elements by role / title / value. Read-only.',
    inputSchema: { type: 'object', properties: { ...selectorProps, limit: { type: 'integer', minimum: 1 } } },
    annotations: READS,
  },
  {
    name: 'desktop_click',
    description: 'Press an element. Asks the user (elicitation) before acting.',
    inputSchema: { type: 'object', properties: targetProps },
    annotations: ACTS,
  },
  {
    name: 'desktop_type',
    description: 'Type text, into an element if one is given. Asks the user (elicitation) before acting.',
    inputSchema: {
      type: 'object',
      properties: {
        ...targetProps,
        text: { type: 'string' },
        clearBefore: { type: 'boolean', description: 'Replace the current text instead of inserting at the caret' },
      },
      required: ['text'],
    },
    annotations: ACTS,
  },
  {
    name: 'desktop_hotkey',
    description: 'Send a key combination such as ["ctrl","k"]. Asks the user (elicitation) before acting.',
    inputSchema: {
      type: 'object',
      properties: { keys: { type: 'array', items: { type: 'string' } }, app: selectorProps.app },
      required: ['keys'],
    },
    annotations: ACTS,
  },
  {
    name: 'desktop_wait_until',
    description: 'Wait until an element matching the selector exists. Read-only.',
    inputSchema: {
      type: 'object',
      properties: { ...selectorProps, timeoutMs: { type: 'integer', minimum: 1 }, pollMs: { type: 'integer', minimum: 10 } },
      required: ['timeoutMs'],
    },
    annotations: READS,
  },
] as const;

/** tool name → contract method, and whether it has side effects (then it asks first). */
export const TOOL_METHODS: Readonly<Record<string, { method: string; sideEffect: boolean }>> = {
  desktop_observe: { method: 'desktop.observe', sideEffect: false },
  desktop_find: { method: 'desktop.find', sideEffect: false },
  desktop_click: { method: 'desktop.click', sideEffect: true },
  desktop_type: { method: 'desktop.typeText', sideEffect: true },
  desktop_hotkey: { method: 'desktop.hotkey', sideEffect: true },
  desktop_wait_until: { method: 'desktop.waitUntil', sideEffect: false },
};

type Args = Record<string, unknown>;

function selectorOf(a: Args): Record<string, unknown> {
  return { byRole: a.role, titleContains: a.title, valueContains: a.value, limit: a.limit };
}

const routeOf = (a: Args) => (typeof a.app === 'string' ? { app: { name: a.app } } : undefined);
const targetOf = (a: Args) => (typeof a.elementId === 'string' ? { elementRef: { elementId: a.elementId } } : { selector: selectorOf(a) });

/** The method-specific params (no meta, no confirm) of a tool call. */
export function paramsFor(tool: string, a: Args): Record<string, unknown> {
  const route = routeOf(a);
  switch (tool) {
    case 'desktop_observe':
      return { route, options: { axMaxNodes: a.maxNodes } };
    case 'desktop_find':
      return { route, selector: selectorOf(a) };
    case 'desktop_click':
      return { route, target: targetOf(a) };
    case 'desktop_type':
      return {
        route,
        text: a.text,
        ...(a.elementId || a.role || a.title || a.value ? { target: targetOf(a) } : {}),
        ...(a.clearBefore !== undefined ? { options: { clearBefore: a.clearBefore } } : {}),
      };
    case 'desktop_hotkey':
      return { route, keys: a.keys };
    default:
      return { route, condition: { selectorExists: selectorOf(a) }, timeoutMs: a.timeoutMs, pollMs: a.pollMs };
  }
}

/** What the user is asked before a side effect: the action in words, and the application and window that get the input. */
export function describeAction(tool: string, p: Record<string, unknown>, place: InputPlace): string {
  const app = `application ${place.app.name}${place.app.pid !== undefined ? ` (pid ${place.app.pid})` : ''}`;
  const win = place.windowTitle !== null ? `, window ${JSON.stringify(place.windowTitle)}` : '';
  return `The desktop host wants to run ${TOOL_METHODS[tool]?.method ?? tool} in ${app}${win} with ${JSON.stringify(p)}. Allow it?`;
}
