import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType } from '@modelcontextprotocol/sdk/validation/types.js';
import type { JsonObject } from '../../../shared/json.js';

const validator = new AjvJsonSchemaValidator();

/**
 * What a stock MCP client says of a result that breaks its tool's `outputSchema` (the SDK's -32602), as an error
 * whose first line says it and whose next lines give the details; undefined for a result that is fine (or an
 * error result, or a tool without an output schema). The dashboard's try-it shows it as the error it is.
 */
export function outputSchemaBreach(toolName: string, outputSchema: unknown, result: JsonObject): string | undefined {
  if (typeof outputSchema !== 'object' || outputSchema === null || result.isError === true) return undefined;
  if (result.structuredContent === undefined)
    return `MCP error -32602: tool ${toolName} has an output schema but did not return structured content\nA stock MCP client refuses this result.`;
  let check;
  try {
    check = validator.getValidator(outputSchema as JsonSchemaType)(result.structuredContent);
  } catch (e) {
    return `MCP error -32602: tool ${toolName}'s output schema cannot be compiled\n${(e as Error).message}`;
  }
  if (check.valid) return undefined;
  return `MCP error -32602: Structured content does not match the tool's output schema\n${check.errorMessage}\nA stock MCP client refuses this result; the structured content was:\n${JSON.stringify(result.structuredContent, null, 2)}`;
}
