import type { PinShape, Withheld } from './tool-pins.js';

/**
 * Prompts, resources and resource templates pinned like tools (tool-pins.ts): on first sight, per server,
 * what a model is told of them — name, title, description, and a prompt's arguments. A changed one is
 * withheld from callers' lists until approved.
 */
export type PinArea = 'prompts' | 'resources' | 'templates';

export const PIN_AREAS: readonly PinArea[] = ['prompts', 'resources', 'templates'];

export const AREA_SHAPES: Record<PinArea, PinShape> = {
  prompts: { fields: ['name', 'title', 'description', 'arguments'], key: 'name' },
  resources: { fields: ['uri', 'name', 'title', 'description', 'mimeType'], key: 'uri' },
  templates: { fields: ['uriTemplate', 'name', 'title', 'description', 'mimeType'], key: 'uriTemplate' },
};

export const AREA_NOUNS: Record<PinArea, string> = { prompts: 'prompt', resources: 'resource', templates: 'resource template' };

/** The refusal of a prompts/get or resources/read of a withheld item. */
export function itemWithheldMessage(server: string, area: PinArea, w: Withheld): string {
  const noun = AREA_NOUNS[area];
  const what =
    w.kind === 'renamed'
      ? `${noun} "${w.name}" of server ${server} is pinned ${noun} "${w.from}" renamed`
      : `the description of ${noun} "${w.name}" of server ${server} changed`;
  return `${what} since it was approved; it is withheld until approved: see the change with "mcpdctl pins ${server}" and accept it with "mcpdctl pins approve ${server} ${w.name}"`;
}
