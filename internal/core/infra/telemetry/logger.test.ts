import { afterEach, describe, expect, it, vi } from 'vitest';
import { secretRedactor } from '../../../shared/redactor.js';
import { createLogger } from './logger.js';

/** The line as the logger wrote it before its member-by-member path: the spread entry, masked, stringified. */
function generic(time: string, level: string, component: string, event: string, fields?: Record<string, unknown>): string {
  const masked = secretRedactor.value({ time, level, component, event, ...fields });
  return `${JSON.stringify(masked, (_k, v: unknown) => (v instanceof Error ? v.message : v))}\n`;
}

function lines(component: string, calls: [string, Record<string, unknown> | undefined][]): string[] {
  const out: string[] = [];
  const log = createLogger(component, 'debug', (l) => out.push(l));
  for (const [event, fields] of calls) log('info', event, fields);
  return out;
}

const CASES: [string, Record<string, unknown> | undefined][] = [
  [
    'tool call',
    { caller: 'bench', tool: 'everything__echo', outcome: 'ok', durationMs: 0.412, message: 'bench called everything__echo: ok' },
  ],
  ['no fields', undefined],
  ['empty', {}],
  ['kinds', { s: 'a "quoted"\nline \u2028 é 😀', n: -0, big: 1e21, small: 5e-7, t: true, f: false, z: null, u: undefined }],
  ['names', { 'a "b"': 1, 'sk-secret-token': 'x', émoji: '😀' }],
  ['head names', { time: 'mine', level: 'x', event: 'e', component: 'c', other: 1 }],
  ['index-like names', { 1: 'one', b: 2, 0: 'zero' }],
  ['not plain', { error: new Error('boom sk-secret-token'), list: [1, 'sk-secret-token'], nested: { k: 'sk-secret-token' } }],
  ['not finite', { n: Number.NaN, i: Number.POSITIVE_INFINITY }],
  ['secret in values sk-secret-token', { token: 'Bearer sk-secret-token', count: 3 }],
];

describe('createLogger', () => {
  afterEach(() => {
    secretRedactor.use([]);
    vi.useRealTimers();
  });

  it.each([
    ['without secrets', []],
    ['with secrets known (in names, values, the event, the component, even a time)', ['sk-secret-token', 'core-x', '2026']],
  ])('writes each line as the spread entry masked and stringified, %s', (_label, secrets) => {
    secretRedactor.use(secrets);
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 29, 14, 20, 0, 7), toFake: ['Date'] });
    const got = lines('core-x', CASES);
    const time = new Date().toISOString();
    expect(got).toEqual(CASES.map(([event, fields]) => generic(time, 'info', 'core-x', event, fields)));
    for (const l of got) expect(() => JSON.parse(l)).not.toThrow();
    if (secrets.length > 0) expect(got.join('')).not.toContain('sk-secret-token');
  });

  it('masks a secret learnt after the logger was made, in the component too', () => {
    const out: string[] = [];
    const log = createLogger('core-x', 'info', (l) => out.push(l));
    secretRedactor.use(['core-x', 'hunter2']);
    log('info', 'said', { pw: 'hunter2' });
    expect(out[0]).not.toMatch(/core-x|hunter2/);
    expect(JSON.parse(out[0] ?? '')).toMatchObject({ component: '***', pw: '***' });
  });

  it('leaves out levels below its minimum', () => {
    const out: string[] = [];
    const log = createLogger('core', 'warning', (l) => out.push(l));
    log('info', 'quiet');
    log('debug', 'quieter');
    log('error', 'loud', { n: 1 });
    expect(out.map((l) => (JSON.parse(l) as { event: string }).event)).toEqual(['loud']);
  });

  it('marks a warning or worse urgent (never held back by the batched stderr), and lower levels not', () => {
    const urgent: Record<string, boolean> = {};
    const log = createLogger('core', 'debug', (l, u) => (urgent[(JSON.parse(l) as { level: string }).level] = u));
    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical'] as const) log(level, 'e', { n: 1 });
    log('error', 'not plain', { error: new Error('x') });
    expect(urgent).toEqual({ debug: false, info: false, notice: false, warning: true, error: true, critical: true });
  });
});
