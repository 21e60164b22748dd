import { EraError } from './protocol.js';

/** How many `subscriptions/listen` streams may hold lanes: in all, and per client. */
export interface ListenCaps {
  /** Below the lane count, so that listen streams never take every lane. */
  total: number;
  perClient: number;
}

/** The JSON-RPC code of a request refused for want of room (the SDK's generic server error). */
const NO_ROOM = -32000;

/**
 * The listen streams a lane pool holds, counted in all and per client. A listen holds its lane for its
 * whole life, so without a cap a few clients' streams take every lane and every other request waits
 *; a slot is reserved before the stream waits for a lane and freed when it ends.
 */
export class ListenSlots {
  private total = 0;
  private readonly byClient = new Map<string, number>();

  constructor(private readonly caps: ListenCaps) {}

  /** Reserves a slot for `client`, or throws the EraError (429 for that client, 503 for everyone) that says why not. */
  take(client: string): void {
    const mine = this.byClient.get(client) ?? 0;
    if (mine >= this.caps.perClient) {
      throw new EraError(
        429,
        NO_ROOM,
        `Too many listen streams: this gateway serves at most ${this.caps.perClient} subscriptions/listen streams per client ` +
          '(MCPD_HTTP_MAX_LISTENS_PER_CLIENT); close one first',
      );
    }
    if (this.total >= this.caps.total) {
      throw new EraError(
        503,
        NO_ROOM,
        `Service unavailable: this gateway serves at most ${this.caps.total} subscriptions/listen streams (MCPD_HTTP_MAX_LISTENS), ` +
          'below its lanes so that other requests are always served; retry later',
      );
    }
    this.total++;
    this.byClient.set(client, mine + 1);
  }

  /** Frees a slot `take` reserved. */
  free(client: string): void {
    const mine = this.byClient.get(client) ?? 0;
    if (mine <= 0) return;
    this.total--;
    if (mine === 1) this.byClient.delete(client);
    else this.byClient.set(client, mine - 1);
  }
}
