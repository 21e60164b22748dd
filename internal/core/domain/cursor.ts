import { McpdError } from '../../shared/errors.js';
import { sha256Hex } from '../../contract/model/naming.js';

/** What a listing cursor pins: a snapshot (by etag), a position in it, and the listing kind. */
export interface CursorState {
  etag: string;
  offset: number;
  /** Listing kind ("tools", "prompts" …), so a cursor cannot be replayed against another list. */
  kind: string;
}

interface CursorWire {
  v: 1;
  e: string;
  o: number;
  k: string;
  c: string;
}

/** Cursors we mint are ~100 characters; anything far longer is not one of ours. */
const MAX_CURSOR_LENGTH = 1024;
const CHECKSUM_LENGTH = 8;

function checksum(etag: string, offset: number, kind: string): string {
  return sha256Hex(`1\u0000${etag}\u0000${offset}\u0000${kind}`).slice(0, CHECKSUM_LENGTH);
}

export function encodeCursor(state: CursorState): string {
  const wire: CursorWire = { v: 1, e: state.etag, o: state.offset, k: state.kind, c: checksum(state.etag, state.offset, state.kind) };
  return Buffer.from(JSON.stringify(wire), 'utf8').toString('base64url');
}

function malformed(why: string): McpdError {
  return new McpdError(
    'INVALID_ARGUMENT',
    `invalid cursor: ${why}; pass back the nextCursor of a previous page unchanged, or omit it to start from the beginning`,
  );
}

function parseWire(cursor: string): unknown {
  if (cursor.length > MAX_CURSOR_LENGTH) throw malformed(`it is ${cursor.length} characters long`);
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw malformed('it is not base64url text');
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw malformed('it does not decode to a cursor');
  }
}

/** Decodes a cursor minted by `encodeCursor`; anything else is an INVALID_ARGUMENT McpdError. */
export function decodeCursor(cursor: string): CursorState {
  const w = parseWire(cursor);
  if (typeof w !== 'object' || w === null) throw malformed('it does not decode to a cursor');
  const { v, e, o, k, c } = w as Record<string, unknown>;
  if (v !== 1) throw malformed(`unknown cursor version ${JSON.stringify(v)}`);
  if (typeof e !== 'string' || typeof k !== 'string' || typeof c !== 'string') throw malformed('fields are missing');
  if (typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0) throw malformed('its offset is not a non-negative integer');
  if (c !== checksum(e, o, k)) throw malformed('its checksum does not match (was it edited?)');
  return { etag: e, offset: o, kind: k };
}
