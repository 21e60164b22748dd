import type { ToolEntry } from './tool.js';

/**
 * Model tokenizers average about four characters of JSON per token; a client puts each tool's
 * definition (name, description, schema) into the model's context roughly as JSON, so this is a fair
 * estimate of what a tool list costs without shipping any model's tokenizer.
 */
const CHARS_PER_TOKEN = 4;

export function estimateTokens(jsonText: string): number {
  return Math.ceil(jsonText.length / CHARS_PER_TOKEN);
}

const listCost = new WeakMap<readonly ToolEntry[], number>();

/** Estimated tokens of a tool list (remembered per immutable list). */
export function toolListTokens(tools: readonly ToolEntry[]): number {
  let n = listCost.get(tools);
  if (n === undefined) {
    n = 0;
    for (const t of tools) n += estimateTokens(JSON.stringify(t.definition));
    listCost.set(tools, n);
  }
  return n;
}
