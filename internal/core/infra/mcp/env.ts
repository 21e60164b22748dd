/**
 * The environment a stdio server starts with: a sane base taken from the core's own environment
 * (the SDK default passes too little for npx/uvx wrappers), with the spec's env on top.
 */
const BASE_KEYS = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LANGUAGE', 'TERM', 'SHELL', 'TMPDIR', 'TZ'];
const BASE_PREFIXES = ['LC_', 'NODE_', 'XDG_'];

function baseEnvironment(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (value === undefined || value.startsWith('()')) continue; // skip exported shell functions
    if (BASE_KEYS.includes(key) || BASE_PREFIXES.some((p) => key.startsWith(p))) env[key] = value;
  }
  return env;
}

export function serverEnvironment(specEnv: Record<string, string>, source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return { ...baseEnvironment(source), ...specEnv };
}
