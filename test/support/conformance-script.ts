import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { REPO } from './paths.js';
import { killTagged } from './procs.js';

/** What scripts/conformance*.sh wrote: its exit code and output, and summary.json once it ran. */
export interface ConformanceRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * One run of a scripts/conformance*.sh wrapper (which installs the pinned suite itself) for a
 * describe block: a results directory and a process tag of its own. After the block, whatever still
 * carries the tag is killed and reported as a failure, and the results are removed.
 */
export class ConformanceScript {
  readonly out: string;
  readonly tag: string;

  /** `env`: extra settings for the script (CONFORMANCE_VERSION, CONFORMANCE_SELECT …). */
  constructor(
    private readonly script: 'conformance.sh' | 'conformance-client.sh',
    private readonly env: Record<string, string> = {},
  ) {
    const name = script.replace(/\.sh$/, '');
    this.out = mkdtempSync(join(tmpdir(), `mcpd-${name}-out-`));
    this.tag = `${name}-test-${randomUUID()}`;
    afterAll(() => {
      const left = killTagged(this.tag);
      rmSync(this.out, { recursive: true, force: true });
      expect(left, 'processes the script left behind').toEqual([]);
    });
  }

  /** Runs the script on the already built dist/ (the test run's global setup builds it). */
  run(): Promise<ConformanceRun> {
    const env = { ...process.env, ...this.env, CONFORMANCE_SKIP_BUILD: '1', CONFORMANCE_OUT: this.out, CONFORMANCE_TAG: this.tag };
    const child = spawn('bash', [join(REPO, 'scripts', this.script)], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  /** summary.json: scenario → outcome. */
  summary<T>(): Record<string, T> {
    return JSON.parse(readFileSync(join(this.out, 'summary.json'), 'utf8')) as Record<string, T>;
  }
}
