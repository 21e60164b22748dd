import { describe, expect, it } from 'vitest';
import { closest, closestNames, didYouMean, editDistance } from './did-you-mean.js';

describe('did you mean', () => {
  it('measures edit distance both ways, empty strings included', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('sitting', 'kitten')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('ranks names containing the wanted one first, then typos within budget', () => {
    // write_file is 4 edits away: past the budget of a 9-letter name.
    expect(closestNames('read_file', ['write_file', 'raed_file', 'unrelated', 'fs__read_file'])).toEqual(['fs__read_file', 'raed_file']);
    expect(closestNames('zzz', ['alpha', 'beta'])).toEqual([]);
  });

  it('finds a config key regardless of case, dashes and underscores', () => {
    expect(closest('forbidden_tools', ['allowedTools', 'forbiddenTools'])).toBe('forbiddenTools');
    expect(closest('complete-nonsense', ['command', 'args'])).toBeUndefined();
    expect(didYouMean('comand', ['command', 'args'])).toBe('did you mean "command"? ');
    expect(didYouMean('xyzzy', ['command'])).toBe('');
  });
});
