import { describe, expect, it } from 'vitest';
import { checkPins, emptyPins } from './tool-pins.js';

const tool = (name: string, description: string) => ({ name, definition: { name, description } });

describe('checkPins', () => {
  it('says changed only when a tool is pinned anew or what is withheld differs', () => {
    const first = checkPins(emptyPins(), [tool('a', 'A'), tool('b', 'B')]);
    expect(first.changed).toBe(true);
    expect(first.admitted.map((t) => t.name)).toEqual(['a', 'b']);

    expect(checkPins(first.next, [tool('a', 'A'), tool('b', 'B')]).changed).toBe(false);
    // A pinned tool that is gone leaves its pin and changes nothing.
    expect(checkPins(first.next, [tool('a', 'A')]).changed).toBe(false);

    const withheld = checkPins(first.next, [tool('a', 'A, and more'), tool('b', 'B')]);
    expect(withheld.changed).toBe(true);
    expect(withheld.admitted.map((t) => t.name)).toEqual(['b']);
    expect(checkPins(withheld.next, [tool('a', 'A, and more'), tool('b', 'B')]).changed).toBe(false);
    // Withheld otherwise, or no longer: both are changes to write.
    expect(checkPins(withheld.next, [tool('a', 'A, and still more'), tool('b', 'B')]).changed).toBe(true);
    expect(checkPins(withheld.next, [tool('a', 'A'), tool('b', 'B')]).changed).toBe(true);
  });
});
