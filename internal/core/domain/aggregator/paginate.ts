import { decodeCursor, encodeCursor } from '../cursor.js';
import { McpdError } from '../../../shared/errors.js';
import type { SnapshotHistory } from './snapshot-history.js';

export interface Page<T> {
  items: readonly T[];
  /** Absent on the last page. */
  nextCursor?: string;
  /** The snapshot every page of this walk comes from. */
  etag: string;
}

const DEFAULT_LISTING_KIND = 'list';

/**
 * One page of a listing. Without a cursor it starts on the latest snapshot; with one it continues on
 * the snapshot the cursor was minted for, even if a newer one has been published since.
 * `kind` binds cursors to one listing ("tools", "prompts" …) so they are not replayed elsewhere.
 */
export function page<S extends { etag: string }, T>(
  history: SnapshotHistory<S>,
  cursor: string | undefined,
  pageSize: number,
  items: (snapshot: S) => readonly T[],
  kind: string = DEFAULT_LISTING_KIND,
): Page<T> {
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
    throw new McpdError('INVALID_ARGUMENT', `page size must be a positive integer, got ${pageSize}`);
  }
  const { snapshot, offset } = cursor === undefined || cursor === '' ? start(history, kind) : resume(history, cursor, kind);
  const all = items(snapshot);
  if (offset > all.length) {
    throw new McpdError(
      'INVALID_ARGUMENT',
      `invalid cursor: offset ${offset} is past the end of a ${kind} listing of ${all.length} items; list again from the start`,
    );
  }
  const end = Math.min(offset + pageSize, all.length);
  const result: Page<T> = { items: all.slice(offset, end), etag: snapshot.etag };
  if (end < all.length) {
    result.nextCursor = encodeCursor({ etag: snapshot.etag, offset: end, kind });
    history.named(snapshot.etag);
  }
  return result;
}

function start<S extends { etag: string }>(history: SnapshotHistory<S>, kind: string): { snapshot: S; offset: number } {
  const snapshot = history.latest();
  if (!snapshot) throw new McpdError('UNAVAILABLE', `the ${kind} listing is not built yet; retry shortly`);
  return { snapshot, offset: 0 };
}

function resume<S extends { etag: string }>(history: SnapshotHistory<S>, cursor: string, kind: string): { snapshot: S; offset: number } {
  const state = decodeCursor(cursor);
  if (state.kind !== kind) {
    throw new McpdError(
      'INVALID_ARGUMENT',
      `invalid cursor: it belongs to a ${state.kind} listing, not ${kind}; omit it to start from the beginning`,
    );
  }
  const snapshot = history.get(state.etag);
  if (!snapshot) {
    throw new McpdError('CURSOR_EXPIRED', 'cursor refers to a listing that is no longer kept; list again from the start');
  }
  return { snapshot, offset: state.offset };
}
