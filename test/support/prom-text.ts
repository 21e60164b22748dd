/**
 * A strict parser for the Prometheus text exposition format (0.0.4): what a scraper would reject, this
 * throws on, with the line number. Used to check /metrics in tests and by tools that read it.
 */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface PromFamily {
  name: string;
  type: string;
  help: string;
  samples: PromSample[];
}

const METRIC = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];
const SUFFIXES: Record<string, string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] };

export function parsePromText(text: string): Map<string, PromFamily> {
  const families = new Map<string, PromFamily>();
  if (text !== '' && !text.endsWith('\n')) throw new Error('exposition must end with a newline');
  text.split('\n').forEach((line, i) => {
    const where = `line ${i + 1}`;
    if (line === '') return;
    if (line.startsWith('#')) return comment(families, line, where);
    const s = sample(line, where);
    const fam = familyOf(families, s.name);
    if (!fam) throw new Error(`${where}: sample ${s.name} has no preceding # TYPE`);
    fam.samples.push(s);
  });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

function comment(families: Map<string, PromFamily>, line: string, where: string): void {
  const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
  if (!m) return; // other comments are allowed
  const [, kind, name = '', rest = ''] = m;
  if (!METRIC.test(name)) throw new Error(`${where}: bad metric name ${name}`);
  const fam = families.get(name) ?? { name, type: 'untyped', help: '', samples: [] };
  if (kind === 'TYPE') {
    if (!TYPES.includes(rest)) throw new Error(`${where}: unknown type "${rest}"`);
    if (fam.samples.length > 0) throw new Error(`${where}: # TYPE after samples of ${name}`);
    fam.type = rest;
  } else fam.help = rest;
  families.set(name, fam);
}

function familyOf(families: Map<string, PromFamily>, sampleName: string): PromFamily | undefined {
  const exact = families.get(sampleName);
  if (exact && !SUFFIXES[exact.type]) return exact;
  for (const f of families.values()) {
    for (const suf of SUFFIXES[f.type] ?? []) if (sampleName === f.name + suf) return f;
  }
  return exact;
}

function sample(line: string, where: string): PromSample {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)(\s+-?\d+)?$/.exec(line);
  if (!m) throw new Error(`${where}: not a sample: ${line}`);
  const [, name = '', labelText, value = ''] = m;
  return { name, labels: labelText ? labels(labelText, where) : {}, value: number(value, where) };
}

function labels(block: string, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  const body = block.slice(1, -1);
  let i = 0;
  while (i < body.length) {
    const eq = body.indexOf('=', i);
    const name = body.slice(i, eq);
    if (eq < 0 || !LABEL.test(name)) throw new Error(`${where}: bad label name in ${block}`);
    if (body[eq + 1] !== '"') throw new Error(`${where}: label ${name} value must be quoted`);
    let j = eq + 2;
    let value = '';
    for (; j < body.length && body[j] !== '"'; j++) {
      if (body[j] === '\\') {
        const c = body[++j];
        if (c === 'n') value += '\n';
        else if (c === '\\' || c === '"') value += c;
        else throw new Error(`${where}: bad escape \\${c} in label ${name}`);
      } else value += body[j];
    }
    if (j >= body.length) throw new Error(`${where}: unterminated value of label ${name}`);
    if (name in out) throw new Error(`${where}: label ${name} repeated`);
    out[name] = value;
    i = j + 1;
    if (body[i] === ',') i++;
    else if (i < body.length) throw new Error(`${where}: expected , after label ${name}`);
  }
  return out;
}

function number(s: string, where: string): number {
  if (s === '+Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  if (s === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) throw new Error(`${where}: bad value ${s}`);
  return Number(s);
}

/** Buckets are cumulative, end in le="+Inf", and that bucket equals _count, per label set. */
function checkHistogram(f: PromFamily): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number; sum?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const e = series.get(key) ?? { buckets: [] };
    series.set(key, e);
    if (s.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${f.name}: bucket without le`);
      e.buckets.push([number(le, `${f.name} le`), s.value]);
    } else if (s.name.endsWith('_count')) e.count = s.value;
    else e.sum = s.value;
  }
  for (const [key, e] of series) {
    const sorted = [...e.buckets].sort((a, b) => a[0] - b[0]);
    let previous = -Infinity;
    for (const [, count] of sorted) {
      if (count < previous) throw new Error(`${f.name}${key}: buckets are not cumulative`);
      previous = count;
    }
    const inf = sorted.at(-1);
    if (!inf || inf[0] !== Infinity) throw new Error(`${f.name}${key}: no le="+Inf" bucket`);
    if (e.count === undefined || e.sum === undefined) throw new Error(`${f.name}${key}: _count or _sum missing`);
    if (inf[1] !== e.count) throw new Error(`${f.name}${key}: +Inf bucket ${inf[1]} != _count ${e.count}`);
  }
}

/** Sum of the samples named `name` whose labels include `match`. */
export function sampleValue(families: Map<string, PromFamily>, name: string, match: Record<string, string> = {}): number {
  let total = 0;
  for (const f of families.values()) {
    for (const s of f.samples) {
      if (s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v)) total += s.value;
    }
  }
  return total;
}
