import { useState } from 'preact/hooks';
import type { InputAnswer, InputRequest } from '../internal/contract/dashboard/dashboard-events.js';
import { elicitFields, elicitProblems, type ElicitField } from '../internal/contract/dashboard/elicitation-form.js';
import type { JsonObject } from '../internal/shared/json.js';
import { conn } from './conn.js';
import { ErrorText } from './error-text.js';
import { inputRequests } from './input-requests.js';

type Json = Record<string, unknown>;

/**
 * A server's request for input during a try-it call, answered here: an elicitation's form (or its URL),
 * or a sampling request's messages with a reply. Accept / Decline / Cancel go back to the server as
 * the person chose; the call then goes on and shows its result.
 */
export function InputRequestView({ req }: { req: InputRequest }) {
  const [error, setError] = useState<string | undefined>();
  const [sending, setSending] = useState(false);
  const send = (answer: Omit<InputAnswer, 'request'>) => {
    setSending(true);
    setError(undefined);
    conn.ask('input-answer', { request: req.request, ...answer }).then(
      () => inputRequests.drop(req.request),
      (e: Error) => (setSending(false), setError(e.message)),
    );
  };
  const headingId = `${req.request}-heading`;
  const isSampling = req.method === 'sampling/createMessage';
  return (
    <section class="input-request" aria-labelledby={headingId} data-input-request={req.method}>
      <h5 id={headingId}>{isSampling ? 'The server asks for a model reply (sampling)' : 'The server asks for input (elicitation)'}</h5>
      {isSampling ? <SamplingForm req={req} sending={sending} send={send} /> : <ElicitationForm req={req} sending={sending} send={send} />}
      {error && <ErrorText message={error} />}
    </section>
  );
}

interface FormProps {
  /** The request: `request` names its form's elements, `params` are the server's. */
  req: Pick<InputRequest, 'request' | 'params'>;
  sending: boolean;
  send: (a: Omit<InputAnswer, 'request'>) => void;
}

/** Accept submits the form; Decline and Cancel answer at once, whatever the form holds. */
function Answers({ sending, send }: Pick<FormProps, 'sending' | 'send'>) {
  return (
    <div class="actions">
      <button type="submit" disabled={sending}>
        Accept
      </button>
      <button type="button" disabled={sending} onClick={() => send({ action: 'decline' })}>
        Decline
      </button>
      <button type="button" disabled={sending} onClick={() => send({ action: 'cancel' })}>
        Cancel
      </button>
    </div>
  );
}

/** An elicitation's form (or its URL) with Accept / Decline / Cancel: a try-it call's, or a task's (pages/tasks.tsx). */
export function ElicitationForm({ req, sending, send }: FormProps) {
  const p = req.params;
  const fields = elicitFields(p.requestedSchema);
  const [values, setValues] = useState<Record<string, string | boolean>>(() => initialValues(fields));
  const [problems, setProblems] = useState<string[]>([]);
  const isUrl = p.mode === 'url' && typeof p.url === 'string';
  const submit = (e: Event) => {
    e.preventDefault();
    if (isUrl) return send({ action: 'accept' });
    const content = contentOf(fields, values);
    const found = elicitProblems(fields, content);
    setProblems(found);
    if (found.length === 0) send({ action: 'accept', content });
  };
  const formId = `${req.request}-form`;
  return (
    <form class="form" onSubmit={submit} aria-label={`answer: ${String(p.message ?? '')}`} noValidate>
      <p class="input-message">{String(p.message ?? '')}</p>
      {isUrl && (
        <p>
          <a href={String(p.url)} target="_blank" rel="noopener noreferrer">
            {String(p.url)}
          </a>
        </p>
      )}
      {!isUrl &&
        fields.map((f) => (
          <ElicitInput
            key={f.name}
            id={`${formId}-${f.name}`}
            f={f}
            value={values[f.name]}
            invalid={problems.some((x) => x.startsWith(`"${f.label}"`))}
            onChange={(v) => setValues({ ...values, [f.name]: v })}
          />
        ))}
      {problems.length > 0 && (
        <ul class="error" role="alert" id={`${formId}-problems`}>
          {problems.map((x) => (
            <li>{x}</li>
          ))}
        </ul>
      )}
      <Answers sending={sending} send={send} />
    </form>
  );
}

function ElicitInput(p: {
  id: string;
  f: ElicitField;
  value: string | boolean | undefined;
  invalid: boolean;
  onChange: (v: string | boolean) => void;
}) {
  const { f, id } = p;
  const label = (
    <label for={id}>
      {f.label}
      {f.required && <span class="req"> *</span>}
      {f.description && <span class="muted"> — {f.description}</span>}
    </label>
  );
  const common = { id, 'aria-invalid': p.invalid, required: f.required };
  if (f.kind === 'boolean')
    return (
      <div class="field field-check">
        <input
          {...common}
          type="checkbox"
          checked={p.value === true}
          onChange={(e) => p.onChange((e.target as HTMLInputElement).checked)}
        />
        {label}
      </div>
    );
  const value = typeof p.value === 'string' ? p.value : '';
  const input =
    f.kind === 'enum' ? (
      <select {...common} value={value} onChange={(e) => p.onChange((e.target as HTMLSelectElement).value)}>
        <option value="">—</option>
        {(f.options ?? []).map((o) => (
          <option value={o.value}>{o.label}</option>
        ))}
      </select>
    ) : (
      <input
        {...common}
        type={f.kind === 'number' || f.kind === 'integer' ? 'number' : inputType(f.format)}
        step={f.kind === 'integer' ? 1 : undefined}
        min={f.minimum}
        max={f.maximum}
        minLength={f.minLength}
        maxLength={f.maxLength}
        value={value}
        onInput={(e) => p.onChange((e.target as HTMLInputElement).value)}
      />
    );
  return (
    <div class="field">
      {label}
      {input}
    </div>
  );
}

function inputType(format: string | undefined): string {
  return format === 'email' ? 'email' : format === 'uri' ? 'url' : format === 'date' ? 'date' : 'text';
}

function initialValues(fields: ElicitField[]): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const f of fields) {
    if (f.kind === 'boolean') out[f.name] = f.default === true;
    else if (f.default !== undefined) out[f.name] = String(f.default);
  }
  return out;
}

/** The form's values as the content the schema asks for: numbers as numbers, empty fields left out. */
function contentOf(fields: ElicitField[], values: Record<string, string | boolean>): JsonObject {
  const out: JsonObject = {};
  for (const f of fields) {
    const v = values[f.name];
    if (typeof v === 'boolean') out[f.name] = v;
    else if (v === undefined || v.trim() === '') continue;
    else if (f.kind === 'number' || f.kind === 'integer') out[f.name] = Number(v);
    else out[f.name] = v;
  }
  return out;
}

function SamplingForm({ req, sending, send }: FormProps) {
  const p = req.params;
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const messages = Array.isArray(p.messages) ? (p.messages as Json[]) : [];
  const id = `${req.request}-reply`;
  const submit = (e: Event) => {
    e.preventDefault();
    if (text.trim() === '') return setProblem('write a reply, or decline');
    setProblem(undefined);
    send({ action: 'accept', text });
  };
  return (
    <form class="form" onSubmit={submit} aria-label="answer: sampling request" noValidate>
      {typeof p.systemPrompt === 'string' && <p class="muted">system prompt: {p.systemPrompt}</p>}
      <ol class="sampling-messages">
        {messages.map((m) => (
          <li>
            <span class="badge">{String(m.role ?? '?')}</span> {contentText(m.content)}
          </li>
        ))}
      </ol>
      <div class="field">
        <label for={id}>Reply (sent to the server as the model's answer)</label>
        <textarea
          id={id}
          rows={3}
          value={text}
          aria-invalid={!!problem}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        />
      </div>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <Answers sending={sending} send={send} />
    </form>
  );
}

function contentText(c: unknown): string {
  const block = (Array.isArray(c) ? c[0] : c) as Json | undefined;
  if (!block) return '';
  return block.type === 'text' ? String(block.text) : `[${String(block.type)}]`;
}
