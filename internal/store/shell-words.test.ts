import { describe, expect, it } from 'vitest';
import { shellWords } from './shell-words.js';

describe('shellWords', () => {
  it('splits on whitespace and honours quotes and backslashes', () => {
    expect(shellWords(`node  "a b" 'c "d"' e\\ f "g\\"h" ''`)).toEqual({ words: ['node', 'a b', 'c "d"', 'e f', 'g"h', ''] });
  });
  it('keeps placeholders intact for later expansion', () => {
    expect(shellWords('run ${A:-x y} --k=${input:id} "${B:-${C} d}"')).toEqual({
      words: ['run', '${A:-x y}', '--k=${input:id}', '${B:-${C} d}'],
    });
  });
  it('reports an unterminated quote', () => {
    expect(shellWords(`a "b`)).toEqual({ error: 'unterminated double quote' });
  });
});
