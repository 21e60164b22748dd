import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

interface Stored {
  seq: number;
  message: JSONRPCMessage;
}

const DEFAULT_EVENT_CAPACITY = 1000;

/**
 * SSE resumability for one HTTP session of `mcpdmcp --http`: the last `capacity` events the session
 * sent, so a client whose stream dropped can reconnect with `Last-Event-ID` and receive what it missed
 * (SEP-1699). Bounded and in memory: it lives and dies with the session; an event older than the
 * window cannot be replayed (the reconnect is refused and the client starts a fresh stream).
 */
export class SessionEventStore implements EventStore {
  private seq = 0;
  private readonly streams = new Map<StreamId, Stored[]>();
  /** Every stored event in order, for evicting the oldest. */
  private readonly order: StreamId[] = [];

  constructor(private readonly capacity = DEFAULT_EVENT_CAPACITY) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const seq = ++this.seq;
    let list = this.streams.get(streamId);
    if (!list) this.streams.set(streamId, (list = []));
    list.push({ seq, message });
    this.order.push(streamId);
    if (this.order.length > this.capacity) this.evictOldest();
    return eventId(streamId, seq);
  }

  async getStreamIdForEventId(id: EventId): Promise<StreamId | undefined> {
    const parsed = parseEventId(id);
    return parsed && this.holds(parsed.streamId, parsed.seq) ? parsed.streamId : undefined;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (id: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const parsed = parseEventId(lastEventId);
    if (!parsed || !this.holds(parsed.streamId, parsed.seq)) return '';
    for (const e of [...(this.streams.get(parsed.streamId) ?? [])]) {
      // Priming events (empty messages) only carry an id: nothing to replay.
      if (e.seq > parsed.seq && Object.keys(e.message).length > 0) await send(eventId(parsed.streamId, e.seq), e.message);
    }
    return parsed.streamId;
  }

  private holds(streamId: StreamId, seq: number): boolean {
    const list = this.streams.get(streamId);
    const first = list?.[0];
    const last = list?.at(-1);
    return first !== undefined && last !== undefined && first.seq <= seq && seq <= last.seq;
  }

  private evictOldest(): void {
    const streamId = this.order.shift() as StreamId;
    const list = this.streams.get(streamId);
    list?.shift();
    if (list?.length === 0) this.streams.delete(streamId);
  }
}

function eventId(streamId: StreamId, seq: number): EventId {
  return `${streamId}/${seq}`;
}

function parseEventId(id: EventId): { streamId: StreamId; seq: number } | undefined {
  const at = id.lastIndexOf('/');
  if (at <= 0) return undefined;
  const seq = Number(id.slice(at + 1));
  return Number.isSafeInteger(seq) && seq > 0 ? { streamId: id.slice(0, at), seq } : undefined;
}
