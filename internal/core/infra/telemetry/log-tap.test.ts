import { describe, expect, it } from 'vitest';
import { coreEntry } from './log-tap.js';

describe('coreEntry', () => {
  it('gives plain fields the JSON form a round trip through JSON gives, without the round trip', () => {
    const fields = { caller: 'alice', tool: 'echo', durationMs: 3, ok: true, none: null, gone: undefined, message: 'alice called echo' };
    const { record, caller } = coreEntry('info', 'tool call', fields);
    const { message: _, ...rest } = fields;
    expect(record.fields).toStrictEqual(JSON.parse(JSON.stringify(rest)));
    expect(Object.keys(record.fields ?? {})).toEqual(['caller', 'tool', 'durationMs', 'ok', 'none']);
    expect(record.message).toBe('alice called echo');
    expect(caller).toBe('alice');
  });

  it('lifts fingerprint, instance and message out of the fields, keeps the caller first, and says which store file', () => {
    for (const extra of [{}, { error: new Error('boom') }]) {
      const e = coreEntry('info', 'x', {
        n: 1,
        fingerprint: 'fp',
        instance: 'i-1',
        message: 'said',
        storeFile: 'a.yaml',
        caller: 'bob',
        ...extra,
      });
      expect(Object.keys(e.record.fields ?? {})).toEqual(['caller', 'n', 'storeFile', ...Object.keys(extra)]);
      expect([e.fingerprint, e.caller, e.storeFile, e.record.instance, e.record.message]).toEqual(['fp', 'bob', 'a.yaml', 'i-1', 'said']);
    }
    const none = coreEntry('info', 'y', { fingerprint: 'fp' });
    expect(none.record.fields).toBeUndefined();
    expect('storeFile' in none).toBe(false);
  });

  it('still turns Errors, bigints and non-finite numbers into JSON', () => {
    const { record } = coreEntry('warning', 'failed', { error: new Error('boom'), big: 10n, ratio: Number.NaN, nested: { at: 'x' } });
    expect(record.fields).toStrictEqual({ error: 'boom', big: '10', ratio: null, nested: { at: 'x' } });
  });
});
