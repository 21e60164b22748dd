import { describe, expect, it } from 'vitest';
import type { DoorCall } from './interceptor.js';
import { tieringInterceptor } from './tiering.js';

const call = (method: string, face = 'session') => ({ face, method, caller: 'alice', target: 'fx__echo' }) as DoorCall;

describe('the tiering interceptor', () => {
  it('tiers up once, at the given tool call on any face; other methods do not count', () => {
    let tierUps = 0;
    const t = tieringInterceptor(3, () => tierUps++);
    const enter = (c: DoorCall) => expect(t.enter?.(c, () => {})).toBeUndefined();
    enter(call('tools/list'));
    enter(call('resources/read'));
    enter(call('tools/call', 'grpc'));
    enter(call('tools/call', 'smcp'));
    expect(tierUps).toBe(0);
    enter(call('tools/call', 'dashboard'));
    expect(tierUps).toBe(1);
    for (let i = 0; i < 10; i++) enter(call('tools/call'));
    expect(tierUps).toBe(1);
  });
});
