import { applyEdits, findNodeAtLocation, format, modify, parse, parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { McpdError } from '../shared/errors.js';

type Json = Record<string, unknown>;

/** The file's object (comments and trailing commas allowed), or a clear refusal. */
export function parseJsonConfig(path: string, text: string | undefined): Json {
  if (text === undefined || text.trim() === '') return {};
  const errors: ParseError[] = [];
  const doc: unknown = parse(text, errors, { allowTrailingComma: true });
  const [e] = errors;
  if (e)
    throw new McpdError(
      'INVALID_ARGUMENT',
      `${path} is not valid JSON (${printParseErrorCode(e.error)} at offset ${e.offset}); fix it first, nothing was changed`,
    );
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new McpdError('INVALID_ARGUMENT', `${path} does not hold a JSON object; nothing was changed`);
  return doc as Json;
}

/** The file's own indentation, so an edit looks like the rest of it. */
function formatting(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return {
    insertSpaces: !indent.startsWith('\t'),
    tabSize: indent.startsWith('\t') ? 1 : indent.length,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  };
}

/**
 * One entry set (or with undefined, removed) in place. jsonc-parser's own formatting of an insertion also
 * reflows the sibling before it (a one-line entry became five lines), so the edit is made unformatted and
 * only the inserted text is formatted afterwards; into an empty or missing table the formatted edit is
 * used, as there is no sibling to reflow.
 */
function editOne(text: string, key: string, name: string, value: unknown): string {
  const options = formatting(text);
  const table = findNodeAtLocation(parseTree(text) ?? { type: 'null', offset: 0, length: 0 }, [key]);
  if (value === undefined || !table?.children?.length) {
    return applyEdits(text, modify(text, [key, name], value, value === undefined ? {} : { formattingOptions: options }));
  }
  const edits = modify(text, [key, name], value, {});
  const out = applyEdits(text, edits);
  const [e] = edits;
  return e ? applyEdits(out, format(out, { offset: e.offset, length: e.content.length }, options)) : out;
}

/** Sets (or with undefined, removes) entries of the server table in place: comments and layout stay. */
export function editJsonEntries(text: string | undefined, key: string, changes: [string, unknown][]): string {
  let out = text === undefined || text.trim() === '' ? '{}\n' : text;
  for (const [name, value] of changes) out = editOne(out, key, name, value);
  return out;
}
