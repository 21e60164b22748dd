import { config } from 'zod/v4';

// Imported before the AppBridge (./app-host.ts), whose modules build zod schemas as they load: zod's first
// object schema probes `new Function` to decide whether to compile validators, and the dashboard's CSP
// refuses eval, a refusal chromium reports as a console error on every page load.
config({ jitless: true });
