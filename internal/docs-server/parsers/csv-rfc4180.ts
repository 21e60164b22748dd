import { ParseError } from './types.js';

/**
 * RFC 4180 reader: comma-separated fields, CRLF or LF record ends, double-quoted fields that may
 * hold commas, newlines and "" for a quote. A final line break does not start an empty record.
 * Malformed quoting is an error with line and column rather than a silent guess.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const fail = (what: string, hint: string): never => {
    throw new ParseError(`CSV line ${line}, column ${i - lineStart + 1}: ${what}; ${hint}`);
  };
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      const startLine = line;
      i++;
      for (;;) {
        if (i >= text.length) {
          line = startLine;
          fail('unterminated quoted field', 'close the field with a double quote');
        }
        const c = text[i];
        if (c === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (c === '\n') {
          line++;
          lineStart = i + 1;
        }
        field += c;
        i++;
      }
      if (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
        fail('text after a closing quote', 'put the whole field inside the quotes');
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
        if (text[i] === '"') fail('quote inside an unquoted field', 'wrap the field in double quotes and write the quote as ""');
        field += text[i];
        i++;
      }
    }
    record.push(field);
    if (text[i] === ',') {
      i++;
      if (i === text.length) record.push('');
      continue;
    }
    if (text[i] === '\r') i++;
    if (text[i] === '\n') i++;
    records.push(record);
    record = [];
    line++;
    lineStart = i;
  }
  if (record.length > 0) records.push(record);
  return records;
}
