import { describe, expect, it } from 'vitest';
import { elicitFields, elicitProblems } from './elicitation-form.js';

const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2, maxLength: 5 },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    ratio: { type: 'number' },
    member: { type: 'boolean', default: true },
    color: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
    size: {
      type: 'string',
      oneOf: [
        { const: 's', title: 'Small' },
        { const: 'l', title: 'Large' },
      ],
    },
    mail: { type: 'string', format: 'email' },
  },
  required: ['name', 'age'],
};

describe('an elicitation requestedSchema as form fields', () => {
  const fields = elicitFields(SCHEMA);

  it('reads each kind, with titles, bounds, options and defaults', () => {
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['name', 'string', true],
      ['age', 'integer', true],
      ['ratio', 'number', false],
      ['member', 'boolean', false],
      ['color', 'enum', false],
      ['size', 'enum', false],
      ['mail', 'string', false],
    ]);
    expect(fields[0]).toMatchObject({ label: 'Name', minLength: 2, maxLength: 5 });
    expect(fields[3]?.default).toBe(true);
    expect(fields[4]?.options).toEqual([
      { value: 'r', label: 'Red' },
      { value: 'g', label: 'Green' },
    ]);
    expect(fields[5]?.options?.map((o) => o.label)).toEqual(['Small', 'Large']);
  });

  it('accepts content that fits', () => {
    expect(elicitProblems(fields, { name: 'Ada', age: 36, ratio: 0.5, member: false, color: 'g', size: 'l', mail: 'a@b.c' })).toEqual([]);
  });

  it('names every field that does not fit, and what is wrong with it', () => {
    expect(elicitProblems(fields, { name: 'A', ratio: 'x', member: 'yes', color: 'blue', mail: 'nope', extra: 1 })).toEqual([
      '"extra" is not a field of this request (fields: name, age, ratio, member, color, size, mail)',
      '"Name" must have at least 2 characters',
      '"age" is required',
      '"ratio" must be a number',
      '"member" must be true or false',
      '"color" must be one of r, g',
      '"mail" must be a valid email',
    ]);
    expect(elicitProblems(fields, { name: 'Ada', age: 1.5 })).toEqual(['"age" must be a whole number']);
    expect(elicitProblems(fields, { name: 'Ada', age: 151 })).toEqual(['"age" must be at most 150']);
    expect(elicitProblems(fields, 'text')).toEqual(['the content must be a JSON object of the form fields']);
  });

  it('takes a missing or malformed schema as a form without fields', () => {
    expect(elicitFields(undefined)).toEqual([]);
    expect(elicitFields({ properties: [1, 2] })).toEqual([]);
    expect(elicitProblems([], {})).toEqual([]);
  });
});
