/** A caller attached to the core: one gateway session (or a registered gRPC client). */
export interface CallerSession {
  id: string;
  caller: string;
  profile: string;
  /** The MCP client's name, when its gateway said it. */
  clientName?: string;
}

export interface CallerMeta {
  pid?: number;
  clientName?: string;
}
