import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { Collision } from '../../gen/mcpd/control/v1/control.js';
import type * as pb from '../../gen/mcpd/control/v1/control.js';

/**
 * ListToolsResponse decoded without copies: the generated decoder copies every tool's JSON into a new
 * Buffer and decodes each short string through TextDecoder, which made decoding a 1,000-tool listing
 * the largest cost of a full ListTools on the client. Here `toolJson` is a view into the received
 * message. Same result as ListToolsResponse.decode (a test compares them field by field); unknown
 * fields are skipped as protobuf requires.
 */
export function decodeListToolsResponse(bytes: Uint8Array): pb.ListToolsResponse {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const r = new BinaryReader(buf);
  const out: pb.ListToolsResponse = { etag: '', tools: [], nextCursor: '', collisions: [] };
  for (let f = nextField(r, r.len, 'ListToolsResponse'); f; f = nextField(r, r.len, 'ListToolsResponse')) {
    if (f.field === 2) {
      // Fields of the tool are read in place; the reader ends at the tool's end.
      r.pos = f.start;
      out.tools.push(decodeTool(r, buf, f.end));
    } else if (f.field === 1) out.etag = utf8(buf, f.start, f.end);
    else if (f.field === 3) out.nextCursor = utf8(buf, f.start, f.end);
    else out.collisions.push(Collision.decode(buf.subarray(f.start, f.end)));
  }
  return out;
}

/** Reads one ToolDefinition from the reader's position up to `to`, leaving the reader there. */
function decodeTool(r: BinaryReader, buf: Buffer, to: number): pb.ToolDefinition {
  const tool: pb.ToolDefinition = { name: '', server: '', toolJson: EMPTY, definitionHash: '' };
  for (let f = nextField(r, to, 'ToolDefinition'); f; f = nextField(r, to, 'ToolDefinition')) {
    if (f.field === 1) tool.name = utf8(buf, f.start, f.end);
    else if (f.field === 2) tool.server = utf8(buf, f.start, f.end);
    else if (f.field === 3) tool.toolJson = buf.subarray(f.start, f.end);
    else tool.definitionHash = utf8(buf, f.start, f.end);
  }
  if (r.pos !== to) throw new RangeError('a ToolDefinition field runs past its message');
  return tool;
}

/**
 * The next length-delimited field 1–4 before `limit` (both messages here have only such fields), the
 * reader moved past it; other fields are skipped. Undefined at `limit`.
 */
function nextField(r: BinaryReader, limit: number, message: string): { field: number; start: number; end: number } | undefined {
  while (r.pos < limit) {
    const tag = r.uint32();
    const field = tag >>> 3;
    if ((tag & 7) !== WireType.LengthDelimited || field < 1 || field > 4) {
      r.skip(tag & 7, field);
      continue;
    }
    const len = r.uint32();
    const start = r.pos;
    r.pos += len;
    if (r.pos > limit) throw new RangeError(`premature end of ${message}`);
    return { field, start, end: r.pos };
  }
  return undefined;
}

const EMPTY = Buffer.alloc(0);

/** Buffer's own UTF-8 slice: `toString` spends more on normalising its arguments than on a short name. */
const utf8 = (buf: Buffer, start: number, end: number): string =>
  (buf as Buffer & { utf8Slice(s: number, e: number): string }).utf8Slice(start, end);
