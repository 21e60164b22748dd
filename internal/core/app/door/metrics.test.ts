import { describe, expect, it } from 'vitest';
import { McpdError } from '../../../shared/errors.js';
import type { CallEnd, DoorCall } from './interceptor.js';
import { metricsInterceptor } from './metrics.js';

const call = { face: 'grpc', method: 'tools/call', caller: 'alice', target: 'fx__echo' } as DoorCall;
const end = (e: Partial<CallEnd>): CallEnd => ({ error: undefined, isError: false, refused: false, durationMs: 250, ...e });

describe('the door metrics interceptor', () => {
  it('counts every ending by face, method and outcome, refusals and cancels included', () => {
    const seen: string[] = [];
    const m = metricsInterceptor((face, method, outcome, s) => seen.push(`${face} ${method} ${outcome} ${s}`));
    const endings = [
      end({}),
      end({ isError: true }),
      end({ error: new Error('boom') }),
      end({ error: new McpdError('CANCELLED', 'the client cancelled') }),
      end({ error: new McpdError('DEADLINE_EXCEEDED', 'too slow') }),
      end({ error: new McpdError('UNAVAILABLE', 'stopping'), refused: true, durationMs: 0 }),
    ];
    for (const e of endings) {
      const exit = m.enter!(call, () => {});
      expect(typeof exit).toBe('function');
      (exit as (e: CallEnd) => void)(e);
    }
    expect(seen).toEqual([
      'grpc tools/call ok 0.25',
      'grpc tools/call error 0.25',
      'grpc tools/call error 0.25',
      'grpc tools/call cancelled 0.25',
      'grpc tools/call timeout 0.25',
      'grpc tools/call refused 0',
    ]);
  });
});
