import { describe, expect, it } from 'vitest';
import { UpdateSink } from '../resource-update-sink.js';
import { whileVisible } from './visible-updates.js';

describe("whileVisible: a subscription's updates only while its target may be seen", () => {
  it('passes updates while visible, skips them while hidden, resumes after, and ends with the subscription', async () => {
    let ended = 0;
    const sink = new UpdateSink(() => ended++);
    let visible = true;
    const sub = whileVisible(sink, () => visible);

    sink.push({ uri: 'a', n: 1 });
    expect(await sub.next()).toEqual({ done: false, value: { uri: 'a', n: 1 } });

    visible = false;
    const next = sub.next();
    sink.push({ uri: 'a', n: 2 }); // hidden: skipped
    await new Promise(setImmediate); // the filter has looked at it (every promise turn has run)
    visible = true;
    sink.push({ uri: 'a', n: 3 });
    expect(await next).toEqual({ done: false, value: { uri: 'a', n: 3 } });

    await sub.return?.();
    expect(ended).toBe(1);
    expect(await sub.next()).toEqual({ done: true, value: undefined });
  });
});
