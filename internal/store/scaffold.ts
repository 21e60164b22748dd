import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_RUNTIME } from '../contract/model/profile.js';
import { SCHEMA_DIR, SCHEMA_FILES, writeStoreSchemas } from './store-schema.js';
import { starterSandboxLines } from './sandbox-default.js';

const defaultProfileText = (): string => `# yaml-language-server: $schema=../${SCHEMA_DIR}/${SCHEMA_FILES.profile}
# mcpd profile "default": used by every caller that callers.yaml does not map elsewhere.
# Add MCP servers to the list below; docs/configuration.md describes every key. Example:
#
# servers:
#   - name: files
#     cmd: [npx, -y, "@modelcontextprotocol/server-filesystem", ~/projects]
#     sandbox: { filesystem: { write: [~/projects] } }
#   - name: trusted
#     cmd: [node, ./my-server.js]
#     sandbox: false # runs with your full rights
#
${starterSandboxLines()}servers: []
`;

const CALLERS_TEXT = `# yaml-language-server: $schema=${SCHEMA_DIR}/${SCHEMA_FILES.callers}
# caller name → profile name (a file profiles/<name>.yaml). Unknown callers use "default".
# Example:
#   callers:
#     vscode: dev
callers: {}
`;

/**
 * Every runtime setting, commented out at its default: a new user sees what can be set (a metrics port
 * already taken is the first thing most change) without reading the docs first. Made from DEFAULT_RUNTIME,
 * so the file cannot name a default the core does not use.
 */
function runtimeText(): string {
  const lines = Object.entries(DEFAULT_RUNTIME).map(([key, value]) => `# ${key}: ${JSON.stringify(value)}`);
  return `# yaml-language-server: $schema=${SCHEMA_DIR}/${SCHEMA_FILES.runtime}
# mcpd process-wide settings. Every key is optional; each line below shows its default (docs/configuration.md,
# "runtime.yaml"). Uncomment a line to change it: metricsAddress is also where the dashboard listens, so change
# it when port 9464 is taken ("" turns the listener off). inputValues gives \${input:ID} values to profiles.
${lines.join('\n')}
# inputValues: {}
`;
}

async function writeNew(file: string, text: string): Promise<boolean> {
  try {
    await writeFile(file, text, { flag: 'wx' });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/** Creates a starter store; existing files are never overwritten. Returns the files it created. */
export async function scaffoldStore(dir: string): Promise<string[]> {
  await mkdir(join(dir, 'profiles'), { recursive: true });
  const created: string[] = [];
  const files: Array<[string, string]> = [
    [join(dir, 'profiles', 'default.yaml'), defaultProfileText()],
    [join(dir, 'callers.yaml'), CALLERS_TEXT],
    [join(dir, 'runtime.yaml'), runtimeText()],
  ];
  for (const [file, text] of files) if (await writeNew(file, text)) created.push(file);
  // Editors that read the yaml-language-server comment above then check and complete the files.
  created.push(...(await writeStoreSchemas(dir)));
  return created;
}
