export { createLauncher, type LauncherOptions, type ManagedLauncher, type ServerRequestHandler } from './launcher.js';
export { McpSession } from './session.js';
export { DEFAULT_LIST_GUARDS, type ListGuards } from './list-tools.js';
export { liveGroupMembers, groupAlive, readProc } from './process-group.js';
