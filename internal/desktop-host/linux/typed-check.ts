/**
 * Typed text read back from the widget that received it. `xdotool type` sends a character outside the keyboard
 * layout (ü, 東) by remapping a spare keycode for a moment; an application that reads the keymap late gets
 * another character (ü arrived as ß) or none, and the host answered `typed: true` all the same. Now the field's
 * text is read back and must show the typed text whole: a difference is an error saying where, without quoting the text
 * (the host logs internal errors, and typed text may be private).
 */
import { BridgeError } from '../../contract/desktop-bridge/errors.js';
import type { TypedCheck } from '../../contract/desktop-bridge/types.js';
import type { Clock } from '../clock.js';

/** A field's text and caret (offsets in characters, as AT-SPI counts them: code points). */
export interface FieldText {
  text: string;
  caret: number;
}

/** How often the field is read while keys may still be arriving. */
const POLL_MS = 100;
/**
 * A field that has not changed for this long is taken as final. The application works through queued keys
 * at its own pace (on a loaded machine seconds behind xdotool), so only a quiet field is judged.
 */
const QUIET_MS = 2000;

/** What the field would read with only this text typed: inserted at the caret, or alone after clearBefore. */
export function expectedAfter(before: FieldText, typed: string, clearBefore: boolean): string {
  if (clearBefore) return typed;
  const points = Array.from(before.text);
  const at = before.caret >= 0 && before.caret <= points.length ? before.caret : points.length;
  return points.slice(0, at).join('') + typed + points.slice(at).join('');
}

/**
 * Whether the field shows the typed text whole: after clearBefore it is the whole field; otherwise the field
 * holds it once more than before. Not an exact comparison with `expectedAfter`: keys of an earlier, stopped
 * typing may still be reaching the application (they come before these, in X's order), and are not this
 * text's fault.
 */
export function arrivedWhole(before: FieldText, field: string, typed: string, clearBefore: boolean): boolean {
  if (clearBefore) return field === typed;
  return occurrences(field, typed) > occurrences(before.text, typed);
}

function occurrences(s: string, part: string): number {
  let n = 0;
  for (let at = s.indexOf(part); at >= 0; at = s.indexOf(part, at + part.length)) n++;
  return n;
}

/**
 * Reads the field until it shows the typed text whole (verified) or stays unchanged for QUIET_MS without it
 * (DESKTOP_INTERNAL_ERROR, `reason: "typed-text-differs"`). The request's signal ends the wait as an abort.
 * A field that can no longer be read leaves the text unverified, saying so.
 */
export async function awaitTyped(
  read: () => Promise<string | undefined>,
  before: FieldText,
  typed: string,
  clearBefore: boolean,
  clock: Clock,
  signal: AbortSignal = new AbortController().signal,
): Promise<TypedCheck> {
  let last = await read();
  let since = clock.now();
  while (last === undefined || !arrivedWhole(before, last, typed, clearBefore)) {
    if (last === undefined) return { verified: false, reason: 'the field could not be read back after typing' };
    if (clock.now() - since >= QUIET_MS) throw differs(expectedAfter(before, typed, clearBefore), last, Array.from(typed).length);
    await clock.sleep(POLL_MS, signal);
    const now = await read();
    if (now !== last) since = clock.now();
    last = now;
  }
  return { verified: true };
}

function differs(expected: string, found: string, typedChars: number): BridgeError {
  const want = Array.from(expected);
  const got = Array.from(found);
  let at = 0;
  while (at < want.length && at < got.length && want[at] === got[at]) at++;
  return new BridgeError(
    'DESKTOP_INTERNAL_ERROR',
    `the typed text arrived different: the field holds ${got.length} characters where ${want.length} were expected, ` +
      `differing from character ${at} on (xdotool types characters outside the keyboard layout by remapping a key, ` +
      `and the application may read them as others or drop them); the field was left as it is: read it with desktop.find`,
    { reason: 'typed-text-differs', expectedChars: want.length, fieldChars: got.length, differsAt: at, typedChars, totalChars: typedChars },
  );
}
