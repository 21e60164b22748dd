import { Collision, ServerFailure } from '../gen/mcpd/control/v1/control.js';
import type * as pb from '../gen/mcpd/control/v1/control.js';

/**
 * ListToolsResponse decoded without copies: the generated decoder copies every tool's JSON into a new
 * Buffer and decodes each short string through TextDecoder, which made decoding a 1,000-tool listing
 * the largest cost of a full ListTools on the client. Here `toolJson` is a view into the received
 * message. Same result as ListToolsResponse.decode (a test compares them field by field); unknown
 * fields are skipped as protobuf requires.
 */
export function decodeListToolsResponse(bytes: Uint8Array): pb.ListToolsResponse {
  const c = new Cursor(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const out: pb.ListToolsResponse = { etag: '', tools: [], nextCursor: '', collisions: [], failures: [], pending: [] };
  const end = c.buf.length;
  for (let field = c.nextField(end); field !== 0; field = c.nextField(end)) {
    if (field === 2) out.tools.push(decodeTool(c));
    else if (field === 1) out.etag = c.string();
    else if (field === 3) out.nextCursor = c.string();
    else if (field === 4) out.collisions.push(Collision.decode(c.bytes()));
    else if (field === 5) out.failures.push(ServerFailure.decode(c.bytes()));
    else if (field === 6) out.pending.push(c.string());
  }
  return out;
}

function decodeTool(c: Cursor): pb.ToolDefinition {
  const end = c.valueEnd;
  c.pos = c.valueStart;
  const tool: pb.ToolDefinition = { name: '', server: '', toolJson: EMPTY, definitionHash: '' };
  for (let field = c.nextField(end); field !== 0; field = c.nextField(end)) {
    if (field === 1) tool.name = c.string();
    else if (field === 2) tool.server = c.string();
    else if (field === 3) tool.toolJson = c.bytes();
    else if (field === 4) tool.definitionHash = c.string();
  }
  if (c.pos !== end) throw new RangeError('a ToolDefinition field runs past its message');
  return tool;
}

/** Reads length-delimited fields 1–6 (those the two messages have) and skips any other field. */
class Cursor {
  pos = 0;
  valueStart = 0;
  valueEnd = 0;

  constructor(readonly buf: Buffer) {}

  /** The next wanted field's number with its value's span set (reader moved past it), or 0 at `end`. */
  nextField(end: number): number {
    while (this.pos < end) {
      const tag = this.varint();
      const field = tag >>> 3;
      const wire = tag & 7;
      if (wire === 2) {
        const len = this.varint();
        this.valueStart = this.pos;
        this.valueEnd = this.pos + len;
        if (this.valueEnd > end) throw new RangeError('premature end of a ListToolsResponse field');
        this.pos = this.valueEnd;
        if (field >= 1 && field <= 6) return field;
      } else if (wire === 0) this.varint();
      else if (wire === 1) this.pos += 8;
      else if (wire === 5) this.pos += 4;
      else throw new RangeError(`unsupported wire type ${wire} in ListToolsResponse`);
    }
    if (this.pos > end) throw new RangeError('premature end of ListToolsResponse');
    return 0;
  }

  /** The current value as UTF-8, through Buffer's public API (no undocumented `utf8Slice`). */
  string(): string {
    return this.buf.toString('utf8', this.valueStart, this.valueEnd);
  }

  bytes(): Buffer {
    return this.buf.subarray(this.valueStart, this.valueEnd);
  }

  /** A varint; the high bits of a 64-bit one are skipped (no field read here needs them). */
  private varint(): number {
    let value = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (this.pos >= this.buf.length) throw new RangeError('premature end of ListToolsResponse');
      const b = this.buf[this.pos++]!; // pos < length was just checked (per-byte hot loop: no must())
      if (shift < 32) value |= (b & 0x7f) << shift;
      if (b < 0x80) return value >>> 0;
    }
    throw new RangeError('malformed varint in ListToolsResponse');
  }
}

const EMPTY = Buffer.alloc(0);
