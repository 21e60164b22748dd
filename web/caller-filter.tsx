/**
 * The "caller" picker of the pages that show every caller's entries or one's (Audit, Tasks): "all callers"
 * is the empty value.
 */
export function CallerFilter(p: { label: string; value: string; names: readonly string[]; onChange: (caller: string) => void }) {
  return (
    <label>
      caller{' '}
      <select aria-label={p.label} value={p.value} onChange={(e) => p.onChange((e.target as HTMLSelectElement).value)}>
        <option value="">all callers</option>
        {p.names.map((c) => (
          <option value={c}>{c}</option>
        ))}
      </select>
    </label>
  );
}
