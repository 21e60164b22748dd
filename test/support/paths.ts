import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

export const REPO = resolve(fileURLToPath(import.meta.url), '../../..');
export const DIST = resolve(REPO, 'dist');
export const MCPD = resolve(DIST, 'cmd/mcpd/main.js');
export const MCPDMCP = resolve(DIST, 'cmd/mcpdmcp/main.js');
export const MCPDCTL = resolve(DIST, 'cmd/mcpdctl/main.js');
export const SUPPORT = resolve(REPO, 'test/support');
export const FIXTURES = resolve(REPO, 'test/fixtures');
export const ECHO_SERVER = resolve(FIXTURES, 'servers/echo.mjs');
export const EVERYTHING = resolve(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
