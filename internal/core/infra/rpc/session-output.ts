import type { JsonObject } from '../../../shared/json.js';
import { encodeJson } from '../../../contract/session/json-bytes.js';
import { OutboundGate, type GatedStream } from './outbound-gate.js';
import { responseFrame } from '../../../contract/session/session-wire.js';
import type { SessionServerMessage } from '../../../contract/gen/mcpd/control/v1/session.js';

/** What SessionOutput writes to: a Session stream of either transport, or one channel of a /2 connection. */
export interface SessionSink extends GatedStream {
  write(msg: SessionServerMessage): unknown;
  /** /1 framed streams: writes a frame encoded by session-wire.ts. */
  writeFrame?(frame: Buffer): unknown;
}

export type SessionLog = (level: 'info' | 'warning', event: string, fields: Record<string, unknown>) => void;

/**
 * Everything the core sends on one Session, through its OutboundGate: answers always go out,
 * notifications and progress are dropped (and counted) while the peer is too far behind.
 */
export class SessionOutput {
  private closed = false;
  private readonly gate: OutboundGate;

  constructor(
    private readonly stream: SessionSink,
    maxBytes: number,
    who: () => Record<string, unknown>,
    log?: SessionLog,
  ) {
    this.gate = new OutboundGate(stream, maxBytes, {
      paused: (buffered) =>
        log?.('warning', 'session output over its limit; reading its requests paused until it catches up', { ...who(), buffered }),
      resumed: (dropped) =>
        log?.(dropped > 0 ? 'warning' : 'info', 'session caught up; reading resumed', { ...who(), droppedNotifications: dropped }),
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  send(msg: SessionServerMessage, admitted = false): void {
    if (this.closed || (!admitted && !this.gate.admit(msg.notification !== undefined || msg.progress !== undefined))) return;
    this.stream.write(msg);
    this.gate.wrote();
  }

  /** A successful answer whose result is JSON text already: framed in one buffer where the stream takes frames. */
  sendResultJson(id: number, resultJson: string): void {
    if (this.closed) return;
    if (!this.stream.writeFrame) return this.send({ response: { id, resultJson: Buffer.from(resultJson, 'utf8') } });
    this.stream.writeFrame(responseFrame(id, resultJson));
    this.gate.wrote();
  }

  /** Checked before encoding: a notification that would be dropped costs no JSON. */
  notify(method: string, params: JsonObject): void {
    if (!this.closed && this.gate.admit(true)) this.send({ notification: { method, paramsJson: encodeJson(params) } }, true);
  }

  close(): void {
    this.closed = true;
  }
}
