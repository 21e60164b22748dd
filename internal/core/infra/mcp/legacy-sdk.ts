/**
 * SDK v1's client and its HTTP transports, loaded the first time a server starts. The client brings Ajv (its
 * JSON Schema validator) and the transports their event-stream parsers: a core that answers a client's
 * first listings from its metadata cache starts no server and need not compile them before it serves
 * (docs/benchmarks.md, "What a client feels at start").
 */
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
