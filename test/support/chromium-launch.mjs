// How every headless browser of the tests and benches is launched: Debian's chromium (never a
// downloaded one), with nothing that reaches the network on its own. Plain .mjs so bench/*.mjs can
// import it as it is; test/support/browser.ts imports it too (types: chromium-launch.d.mts).

/** Flags: headless, no sandbox (CI runs as root), no GPU, no background traffic. */
export const CHROMIUM_ARGS = Object.freeze([
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]);

/** Options for playwright-core's `chromium.launch`; `env` lets a test tag the browser's processes. */
export function chromiumLaunchOptions(env) {
  return { env, executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: [...CHROMIUM_ARGS] };
}
