/**
 * The MCP requests the gateway serves besides `initialize` and `ping`: every method the control-plane
 * areas declare for the gateway (internal/contract/areas/; gateway-methods.test.ts keeps the two equal).
 * The one list the gateway's one dispatcher (mcp-dispatcher.ts) serves, on stdio, over HTTP and on the
 * 2026-07-28 lanes. Written out here because importing the areas loads the SDK's protocol schemas, which
 * a stdio session never loads.
 */
export const GATEWAY_METHODS: readonly string[] = [
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
];

/** Throws for an adapter of a method the gateway does not serve: it would never run. */
export function assertAdaptersServed(adapted: Iterable<string>): void {
  for (const name of adapted) {
    if (!GATEWAY_METHODS.includes(name)) throw new Error(`gateway adapter for ${name}, which no area declares for the gateway`);
  }
}
