import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SCHEMA_DIR, SCHEMA_FILES, writeStoreSchemas } from './store-schema.js';

const DEFAULT_PROFILE_TEXT = `# yaml-language-server: $schema=../${SCHEMA_DIR}/${SCHEMA_FILES.profile}
# mcpd profile "default": used by every caller that callers.yaml does not map elsewhere.
# Add MCP servers to the list below; docs/configuration.md describes every key. Example:
#
# servers:
#   - name: everything
#     cmd: [npx, -y, "@modelcontextprotocol/server-everything", stdio]
#
servers: []
`;

const CALLERS_TEXT = `# yaml-language-server: $schema=${SCHEMA_DIR}/${SCHEMA_FILES.callers}
# caller name → profile name (a file profiles/<name>.yaml). Unknown callers use "default".
# Example:
#   callers:
#     vscode: dev
callers: {}
`;

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
    [join(dir, 'profiles', 'default.yaml'), DEFAULT_PROFILE_TEXT],
    [join(dir, 'callers.yaml'), CALLERS_TEXT],
  ];
  for (const [file, text] of files) if (await writeNew(file, text)) created.push(file);
  // Editors that read the yaml-language-server comment above then check and complete the files.
  created.push(...(await writeStoreSchemas(dir)));
  return created;
}
