import { execFile } from 'node:child_process';
import type { InputDef } from '../contract/model/profile.js';
import type { InputOutcome } from './expand.js';
import { shellWords } from './shell-words.js';

const COMMAND_INPUT_TIMEOUT_MS = 5_000;

/** `MCPD_INPUT_<ID>`: upper case, every non-alphanumeric character becomes `_`. */
export function inputEnvName(id: string): string {
  return `MCPD_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

export interface InputSources {
  defs: InputDef[];
  /** From runtime.yaml `inputValues`. */
  values: ReadonlyMap<string, string>;
  env: NodeJS.ProcessEnv;
  /** Working directory for command inputs. */
  cwd: string;
  /**
   * False: a command input without a given value is not run; it stands as DEFERRED_INPUT (`mcpd validate`
   * without --run-commands, profiles no caller uses).
   */
  runCommands?: boolean;
}

/** What an input that was not resolved stands as; a server whose fields contain it is never started. */
export const DEFERRED_INPUT = 'mcpd-deferred-input';

/** For servers that will not run (disabled): every input stands as DEFERRED_INPUT, nothing is run or required. */
export function deferredInputs(): (id: string) => Promise<InputOutcome> {
  return () => Promise.resolve({ ok: true, value: DEFERRED_INPUT, secret: false });
}

function runCommand(def: Extract<InputDef, { type: 'command' }>, src: InputSources): Promise<InputOutcome> {
  const split = shellWords(def.command);
  const [program, ...words] = 'error' in split ? [] : split.words;
  if ('error' in split || program === undefined) {
    const why = 'error' in split ? split.error : 'it is empty';
    return Promise.resolve({ ok: false, message: `input "${def.id}": cannot run command: ${why}`, hint: "fix the input's command" });
  }
  // A2C-SMCP gives args as a mapping; each entry becomes one `--key=value` argument, in written order.
  const argv = [...words, ...Object.entries(def.args ?? {}).map(([k, v]) => `--${k}=${v}`)];
  return new Promise((resolveOutcome) => {
    execFile(program, argv, { cwd: src.cwd, env: src.env, timeout: COMMAND_INPUT_TIMEOUT_MS, windowsHide: true }, (err, stdout, stderr) => {
      const value = String(stdout).trim();
      if (err) {
        const why = err.killed
          ? `timed out after ${COMMAND_INPUT_TIMEOUT_MS / 1000} s`
          : `${err.message.split('\n')[0]}${String(stderr).trim() ? `: ${String(stderr).trim().split('\n')[0]}` : ''}`;
        resolveOutcome({
          ok: false,
          missing: true,
          message: `input "${def.id}": command "${def.command}" failed (${why})`,
          hint: `make the command succeed, or set ${inputEnvName(def.id)} / inputValues.${def.id} in runtime.yaml`,
        });
      } else if (!value) {
        resolveOutcome({
          ok: false,
          missing: true,
          message: `input "${def.id}": command "${def.command}" printed nothing`,
          hint: 'the command must print the value on stdout',
        });
      } else {
        resolveOutcome({ ok: true, value, secret: true });
      }
    });
  });
}

function outcomeFor(def: InputDef, src: InputSources): Promise<InputOutcome> {
  // A command input exists to fetch a value from somewhere safer than the profile: treat it as a secret.
  const secret = (def.type === 'promptString' && def.password === true) || def.type === 'command';
  const envName = inputEnvName(def.id);
  const given: Array<[string, string | undefined]> = [
    [`runtime.yaml inputValues.${def.id}`, src.values.get(def.id)],
    [`environment variable ${envName}`, src.env[envName]],
  ];
  const found = given.find(([, v]) => v !== undefined);
  if (!found && def.type === 'command') {
    return src.runCommands === false ? Promise.resolve({ ok: true, value: DEFERRED_INPUT, secret: false }) : runCommand(def, src);
  }
  const [from, value] = found ?? ['its default', def.type === 'command' ? undefined : def.default];
  if (value === undefined) {
    return Promise.resolve({
      ok: false,
      missing: true,
      message: `input "${def.id}" has no value`,
      hint: `set inputValues.${def.id} in runtime.yaml or ${envName} in the environment, or give the input a default`,
    });
  }
  if (def.type === 'pickString' && !def.options.includes(value)) {
    return Promise.resolve({
      ok: false,
      message: `input "${def.id}": value "${value}" from ${from} is not one of its options`,
      hint: `use one of: ${def.options.join(', ')}`,
    });
  }
  return Promise.resolve({ ok: true, value, secret });
}

/** Resolves each input at most once per load, so a command input runs once however often it is used. */
export function inputResolver(src: InputSources): (id: string) => Promise<InputOutcome> {
  const cache = new Map<string, Promise<InputOutcome>>();
  const defs = new Map(src.defs.map((d) => [d.id, d]));
  return (id) => {
    const def = defs.get(id);
    if (!def) {
      return Promise.resolve({
        ok: false,
        message: `unknown input "${id}"`,
        hint: `define it in this profile under inputs: with id: ${id}`,
      });
    }
    let p = cache.get(id);
    if (!p) {
      p = outcomeFor(def, src);
      cache.set(id, p);
    }
    return p;
  };
}
