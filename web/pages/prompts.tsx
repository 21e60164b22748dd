import { useState } from 'preact/hooks';
import { conn } from '../conn.js';
import { useOnline, useWatch } from '../hooks.js';
import { ErrorText } from '../error-text.js';
import { SearchList } from '../list.js';
import { ResultView } from '../result-view.js';
import { SchemaForm } from '../schema-form.js';

type Json = Record<string, unknown>;

/** Prompts of a caller: arguments (with completions), get, and the rendered messages. */
export function PromptsTab({ caller }: { caller: string }) {
  const snap = useWatch('prompts', { caller });
  const [open, setOpen] = useState<string | undefined>();
  return (
    <SearchList
      label="prompts"
      items={snap && snap.caller === caller ? snap.prompts : undefined}
      text={(p) => `${p.name} ${String(p.definition.description ?? '')}`}
      empty="no prompts for this caller"
      render={(p) => (
        <li key={p.name} class="item">
          <div class="item-head">
            <button class="link" aria-expanded={open === p.name} onClick={() => setOpen(open === p.name ? undefined : p.name)}>
              {p.name}
            </button>
            <span class="badge">{p.server}</span>
          </div>
          <div class="muted">{String(p.definition.description ?? '')}</div>
          {open === p.name && <PromptDetail caller={caller} name={p.name} definition={p.definition} />}
        </li>
      )}
    />
  );
}

function PromptDetail({ caller, name, definition }: { caller: string; name: string; definition: Json }) {
  const args = (Array.isArray(definition.arguments) ? definition.arguments : []) as Json[];
  const schema = {
    properties: Object.fromEntries(args.map((a) => [String(a.name), { type: 'string', description: a.description }])),
    required: args.filter((a) => a.required).map((a) => String(a.name)),
  };
  const [values, setValues] = useState<Record<string, string>>({});
  const [suggestions, setSuggestions] = useState<Record<string, string[]>>({});
  const [out, setOut] = useState<{ messages?: Json[]; error?: string }>({});
  const online = useOnline();
  const suggest = (field: string, value: string) => {
    const params = { ref: { type: 'ref/prompt', name }, argument: { name: field, value }, context: { arguments: values } };
    conn.ask('complete', { caller, params }).then(
      (r) => setSuggestions((s) => ({ ...s, [field]: ((r.completion as Json)?.values as string[]) ?? [] })),
      () => {},
    );
  };
  const get = (e: Event) => {
    e.preventDefault();
    // The server would refuse a missing required argument with a protocol error: say which one, here.
    const missing = schema.required.filter((a) => !values[a]?.trim());
    if (missing.length > 0) return setOut({ error: `required: ${missing.map((a) => `"${a}"`).join(', ')}` });
    conn.ask('prompt', { caller, name, args: values }).then(
      (r) => setOut({ messages: (r.messages as Json[]) ?? [] }),
      (err: Error) => setOut({ error: err.message }),
    );
  };
  return (
    <div class="detail">
      <form onSubmit={get} aria-label={`get prompt ${name}`}>
        <SchemaForm
          id={`prompt-${name}`}
          schema={schema}
          values={values}
          onChange={setValues}
          suggest={suggest}
          suggestions={suggestions}
        />
        <button type="submit" disabled={!online}>
          Get prompt
        </button>
      </form>
      {out.error && <ErrorText message={out.error} />}
      {out.messages?.map((m, i) => (
        <div key={i} class="message">
          <span class="badge">{String(m.role)}</span>
          <ResultView result={{ content: [m.content] }} />
        </div>
      ))}
    </div>
  );
}
