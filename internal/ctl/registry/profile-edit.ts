import { isSeq, parseDocument } from 'yaml';
import { McpdError } from '../../shared/errors.js';

/** The profile text with the server (and its inputs) appended; comments and the rest kept as written. */
export function withServer(before: string, file: string, entry: Record<string, unknown>, inputs: Record<string, unknown>[]): string {
  const doc = parseDocument(before || 'servers: []\n');
  const servers = doc.get('servers');
  if (isSeq(servers)) {
    if (servers.items.some((s) => (s as { get?: (k: string) => unknown }).get?.('name') === entry.name)) {
      throw new McpdError('INVALID_ARGUMENT', `${file} already has a server named ${String(entry.name)}; pick another with --as NAME`);
    }
    // `servers: []` is written in flow style; the added entry reads better as a block.
    servers.flow = false;
    servers.add(doc.createNode(entry));
  } else doc.set('servers', doc.createNode([entry]));
  if (inputs.length) {
    const existing = doc.get('inputs');
    if (isSeq(existing)) for (const i of inputs) existing.add(doc.createNode(i));
    else doc.set('inputs', doc.createNode(inputs));
  }
  return doc.toString();
}
