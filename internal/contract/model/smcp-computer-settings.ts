/** The `smcp:` section of runtime.yaml: the core as A2C-SMCP Computers (docs/smcp.md). */
export interface SmcpComputerSettings {
  /** Unique within the office (the Server enforces it too). */
  name: string;
  /** Whose view (tools, desktop, finder, config) this computer serves. */
  caller: string;
}

export interface SmcpSettings {
  /** Base URL of the SMCP Server; the `/smcp` namespace is appended. */
  url: string;
  /** Sent as the `x-api-key` header; already expanded (`${SMCP_API_KEY}`). Never logged. */
  apiKey: string;
  office: string;
  computers: SmcpComputerSettings[];
}

export type SmcpLinkState = 'connecting' | 'joined' | 'disconnected' | 'refused' | 'stopped';

/** One computer's connection, as `mcpdctl status` shows it. */
export interface SmcpComputerStatus {
  name: string;
  caller: string;
  office: string;
  url: string;
  state: SmcpLinkState;
  /** Socket.IO session id while connected. */
  sid?: string;
  /** Why the last connection or join failed, or why it dropped. */
  lastError?: string;
  /** Unix ms of the last state change. */
  since: number;
  /** Successful joins since the core started: more than one means it re-joined after a reconnect. */
  joins: number;
}

/**
 * What a computer's connection depends on: when it differs after a reload the computer reconnects;
 * a computer whose key is unchanged keeps its connection (the caller is part of it because the
 * office's agent must re-read everything anyway).
 */
export function computerKey(s: SmcpSettings, c: SmcpComputerSettings): string {
  return JSON.stringify([s.url, s.apiKey, s.office, c.name, c.caller]);
}
