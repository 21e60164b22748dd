import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { EraError, INVALID_PARAMS } from './protocol.js';

/** What a gateway-issued `requestState` names: the parked request, whose it is and until when. */
export interface StateClaims {
  /** The parked request. */
  park: string;
  /** The caller (and so the profile) the request ran as. */
  caller: string;
  /** The method and the tool/prompt name or resource URI of the request it continues. */
  method: string;
  target: string;
  /** Milliseconds since the epoch after which the state is refused. */
  expires: number;
}

/**
 * Seals and opens the `requestState` of InputRequiredResults the gateway issues: base64url JSON plus an
 * HMAC-SHA256 over it with a key made at process start, so a client can neither forge nor alter one,
 * and a state from another process (or from before a restart) is refused.
 */
export class RequestStateSeal {
  private readonly key = randomBytes(32);

  seal(claims: StateClaims): string {
    const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The claims of a state this process sealed for this request, or an EraError saying why not. */
  open(state: string, expect: { caller: string; method: string; target: string }, now = Date.now()): StateClaims {
    const [body, mac, extra] = state.split('.');
    if (!body || !mac || extra !== undefined || !this.macMatches(body, mac)) {
      throw new EraError(
        200,
        INVALID_PARAMS,
        'Invalid params: requestState was not issued by this gateway or was altered; call again without it',
      );
    }
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StateClaims;
    if (claims.caller !== expect.caller || claims.method !== expect.method || claims.target !== expect.target) {
      throw new EraError(
        200,
        INVALID_PARAMS,
        `Invalid params: requestState belongs to another request than this ${expect.method}; call again without it`,
      );
    }
    if (claims.expires < now) {
      throw new EraError(200, INVALID_PARAMS, 'Invalid params: requestState expired; call again without it to start over');
    }
    return claims;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }

  private macMatches(body: string, mac: string): boolean {
    const want = Buffer.from(this.mac(body));
    const got = Buffer.from(mac);
    return got.length === want.length && timingSafeEqual(got, want);
  }
}
