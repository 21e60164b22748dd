export { createLauncher, type LauncherOptions, type ManagedLauncher, type ServerRequestHandler } from './launcher.js';

export { type ListGuards } from './list-tools.js';
