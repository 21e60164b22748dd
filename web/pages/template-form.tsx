import { useEffect, useRef, useState } from 'preact/hooks';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { useOnline } from '../hooks.js';
import { ErrorText } from '../error-text.js';

/**
 * A resource template's variables as a form, opened at the template's row (where the click was): Read
 * expands the template (RFC 6570, the SDK's implementation) and hands the URI to `onRead`.
 */
export function TemplateForm({ uriTemplate, onRead }: { uriTemplate: string; onRead: (uri: string) => void }) {
  const online = useOnline();
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | undefined>();
  const parsed = parse(uriTemplate);
  const first = useRef<HTMLInputElement>(null);
  // Opened by a click far down the list: the first field takes the focus, for the keyboard.
  useEffect(() => first.current?.focus(), [uriTemplate]);
  if ('error' in parsed) return <ErrorText message={`this template cannot be expanded: ${parsed.error}`} />;
  const id = (name: string) => `tpl-${`${uriTemplate}-${name}`.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  return (
    <form
      class="form detail"
      aria-label={`read template ${uriTemplate}`}
      onSubmit={(e) => {
        e.preventDefault();
        const missing = parsed.names.find((n) => !values[n]);
        if (missing !== undefined) return setError(`"${missing}" is required`);
        setError(undefined);
        onRead(parsed.template.expand(values));
      }}
    >
      {parsed.names.map((name, i) => (
        <div class="field" key={name}>
          <label for={id(name)}>{name}</label>
          <input
            id={id(name)}
            ref={i === 0 ? first : undefined}
            value={values[name] ?? ''}
            onInput={(e) => setValues({ ...values, [name]: (e.target as HTMLInputElement).value })}
          />
        </div>
      ))}
      {error && <ErrorText message={error} />}
      <div>
        <button type="submit" disabled={!online}>
          Read
        </button>
      </div>
    </form>
  );
}

function parse(uriTemplate: string): { template: UriTemplate; names: string[] } | { error: string } {
  try {
    const template = new UriTemplate(uriTemplate);
    return { template, names: [...new Set(template.variableNames)] };
  } catch (e) {
    return { error: (e as Error).message };
  }
}
