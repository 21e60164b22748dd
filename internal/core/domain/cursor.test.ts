import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.js';
import { isMcpdError } from '../../shared/errors.js';

function reasonOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return isMcpdError(e) ? e.reason : 'not-mcpd';
  }
  return undefined;
}

describe('cursor', () => {
  it('round-trips and is opaque base64url', () => {
    const c = encodeCursor({ etag: 'abc123', offset: 42, kind: 'tools' });
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(c)).toEqual({ etag: 'abc123', offset: 42, kind: 'tools' });
  });

  it('rejects garbage, edits and oversized input as INVALID_ARGUMENT', () => {
    const good = encodeCursor({ etag: 'abc123', offset: 42, kind: 'tools' });
    const wire = JSON.parse(Buffer.from(good, 'base64url').toString()) as Record<string, unknown>;
    const edited = Buffer.from(JSON.stringify({ ...wire, o: 0 })).toString('base64url');
    const cases = [
      'not a cursor!',
      'Zm9v', // "foo"
      Buffer.from('null').toString('base64url'),
      Buffer.from('{"v":2}').toString('base64url'),
      Buffer.from(JSON.stringify({ ...wire, o: -1 })).toString('base64url'),
      edited,
      'A'.repeat(5000),
    ];
    for (const c of cases)
      expect(
        reasonOf(() => decodeCursor(c)),
        c,
      ).toBe('INVALID_ARGUMENT');
    expect(() => decodeCursor(edited)).toThrow(/checksum/);
  });
});
