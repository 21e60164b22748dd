export { createLauncher } from './launcher.js';
