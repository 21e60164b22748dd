/**
 * The dashboard's Caller view shows what the caller's MCP client lists: the tool and resource watches
 * it follows carry the context channels' entries too (context-entries.ts), the same the core's lists
 * hold, so the page needs no list of its own.
 */
import { contextChannelsOf, type ContextChannels } from '../../contract/control/context-channels.js';
import type { ResourceSnapshot, Subscription } from '../../contract/control/control-areas.js';
import type { ToolSnapshot } from '../../contract/model/tool.js';
import { contextResourceEntries, contextTemplateEntries, contextToolEntries } from './context-entries.js';

const NONE: ContextChannels = { desktop: false, finder: false };

/** Each snapshot with the Finder's tool where the caller has documents. */
export function toolsWithContext(sub: Subscription<ToolSnapshot>, channels: () => Promise<ContextChannels>): Subscription<ToolSnapshot> {
  return mapped(sub, async (s) => {
    // A caller whose resources cannot be listed has no channel to show; the resources watch says why.
    const ch = await channels().catch(() => NONE);
    return { ...s, tools: [...s.tools, ...contextToolEntries(ch)] };
  });
}

/** Each snapshot with the Desktop and Finder entries where the caller's servers give them content. */
export function resourcesWithContext(sub: Subscription<ResourceSnapshot>): Subscription<ResourceSnapshot> {
  return mapped(sub, (s) => {
    const ch = contextChannelsOf([...s.resources.map((r) => r.uri), ...s.templates.map((t) => t.uriTemplate)]);
    return Promise.resolve({
      ...s,
      resources: [...s.resources, ...contextResourceEntries(ch)],
      templates: [...s.templates, ...contextTemplateEntries(ch)],
    });
  });
}

/** `sub` with each item mapped; return() ends `sub` at once, even while a next() waits on it. */
function mapped<T>(sub: Subscription<T>, map: (v: T) => Promise<T>): Subscription<T> {
  const it: Subscription<T> = {
    next: async () => {
      const r = await sub.next();
      return r.done ? r : { done: false, value: await map(r.value) };
    },
    return: async () => (await sub.return?.()) ?? { done: true, value: undefined },
    [Symbol.asyncIterator]: () => it,
  };
  return it;
}
