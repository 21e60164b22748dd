import { describe, expect, it } from 'vitest';
import { FIRST_WINDOW, RequestAdmission } from './request-admission.js';

/** An output whose unread bytes the test sets, as a socket's grow while its peer does not read. */
function world(budget: number) {
  const out = { unread: 0, held: [] as boolean[] };
  const started: number[] = [];
  const admission = new RequestAdmission(budget, { unread: () => out.unread, holdReading: (h) => out.held.push(h) });
  const submit = (id: number, bytes = 10) => admission.submit(id, bytes, () => started.push(id));
  return { out, started, admission, submit };
}

describe('RequestAdmission', () => {
  it('starts a first window before any answer, then as many as the answers seen leave room for', () => {
    const { out, started, admission, submit } = world(800);
    for (let id = 1; id <= 20; id++) submit(id);
    expect(started).toHaveLength(FIRST_WINDOW);
    expect(admission.counts).toEqual({ deferred: 20 - FIRST_WINDOW, queued: 20 - FIRST_WINDOW, inFlight: FIRST_WINDOW });
    // A 400-byte answer the peer does not read: 400 unread, 7 running expected at 400 each: nothing fits.
    out.unread = 400;
    admission.answered(400);
    expect(started).toHaveLength(FIRST_WINDOW);
  });

  it('never starts while the unread output is over budget, and starts the queue in order once it drains', () => {
    const { out, started, admission, submit } = world(100);
    submit(1);
    out.unread = 150;
    admission.answered(150);
    submit(2);
    submit(3);
    expect(started).toEqual([1]);
    out.unread = 0;
    admission.pump();
    expect(started).toEqual([1, 2]); // one runs at a time while answers are 150 bytes against a 100-byte budget
    admission.answered(20);
    expect(started).toEqual([1, 2, 3]);
  });

  it('a cancelled request leaves the queue, and a full queue holds reading until it empties', () => {
    const { out, started, admission, submit } = world(100);
    out.unread = 101;
    submit(1, 60);
    expect(admission.remove(1)).toBe(true);
    expect(admission.remove(1)).toBe(false);
    submit(2, 60);
    submit(3, 60); // 120 queued bytes > budget: stop reading the peer
    expect(out.held).toEqual([true]);
    out.unread = 0;
    admission.pump(); // no answer seen yet: both fit the first window
    expect(started).toEqual([2, 3]);
    expect(out.held).toEqual([true, false]);
  });
});
