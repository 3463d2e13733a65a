/**
 * Turns zod issues into the project's `<json path>: <expected, found>` messages, one per problem,
 * with "did you mean" suggestions for unknown keys. Every document the project parses with zod (the
 * run spec, a loader job, a process manifest, a cost input) reports its problems through here.
 */
import { z } from 'zod';
import type { Issue } from '../common/errors';

type ZodIssue = z.core.$ZodIssue & { input?: unknown };

export function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const key = String(seg);
      out += /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? (out ? '.' : '') + key : `[${JSON.stringify(key)}]`;
    }
  }
  return out || '(root)';
}

export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing (the field is missing)';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string')
    return `the string ${JSON.stringify(v.length > 60 ? v.slice(0, 57) + '...' : v)}`;
  return `${typeof v} ${String(v)}`;
}

/** Levenshtein distance, for "did you mean". */
export function editDistance(a: string, b: string): number {
  const al = a.toLowerCase();
  const bl = b.toLowerCase();
  const prev = Array.from({ length: bl.length + 1 }, (_, i) => i);
  for (let i = 1; i <= al.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= bl.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (al[i - 1] === bl[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[bl.length]!;
}

export function suggest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(key, k);
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  const limit = Math.max(2, Math.floor(key.length / 3));
  return best !== undefined && bestD <= limit ? best : undefined;
}

/** Unwraps optional/default/pipe wrappers to reach the schema that decides the shape. */
function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let s = schema;
  for (;;) {
    const def = s._zod.def as unknown as { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType };
    if (
      (def.type === 'optional' ||
        def.type === 'default' ||
        def.type === 'nullable' ||
        def.type === 'prefault') &&
      def.innerType
    )
      s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else return s;
  }
}

/** The object keys a schema accepts at `path`, following the input data through unions. */
export function knownKeysAt(
  root: z.core.$ZodType,
  path: ReadonlyArray<PropertyKey>,
  data: unknown,
): string[] {
  const candidates = descend(root, path, data);
  const keys = new Set<string>();
  for (const c of candidates) {
    const def = unwrap(c)._zod.def as unknown as { type: string; shape?: Record<string, unknown> };
    if (def.type === 'object' && def.shape) Object.keys(def.shape).forEach((k) => keys.add(k));
  }
  return [...keys];
}

function descend(
  schema: z.core.$ZodType,
  path: ReadonlyArray<PropertyKey>,
  data: unknown,
): z.core.$ZodType[] {
  const s = unwrap(schema);
  const def = s._zod.def as unknown as {
    type: string;
    shape?: Record<string, z.core.$ZodType>;
    element?: z.core.$ZodType;
    options?: z.core.$ZodType[];
    discriminator?: string;
    valueType?: z.core.$ZodType;
  };
  if (def.type === 'union') {
    let options = def.options ?? [];
    if (def.discriminator && data && typeof data === 'object') {
      const want = (data as Record<string, unknown>)[def.discriminator];
      const matching = options.filter((o) => {
        const od = unwrap(o)._zod.def as unknown as { shape?: Record<string, z.core.$ZodType> };
        const lit = od.shape?.[def.discriminator!];
        const values = lit
          ? ((lit._zod as unknown as { values?: Set<unknown> }).values ?? new Set())
          : new Set();
        return values.has(want);
      });
      if (matching.length) options = matching;
    }
    return options.flatMap((o) => descend(o, path, data));
  }
  if (path.length === 0) return [s];
  const [head, ...rest] = path;
  const child =
    data && typeof data === 'object'
      ? (data as Record<PropertyKey, unknown>)[head as PropertyKey]
      : undefined;
  if (def.type === 'object' && def.shape && typeof head === 'string' && def.shape[head])
    return descend(def.shape[head], rest, child);
  if (def.type === 'array' && def.element && typeof head === 'number')
    return descend(def.element, rest, child);
  if (def.type === 'record' && def.valueType) return descend(def.valueType, rest, child);
  return [];
}

function inputAt(data: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let cur = data;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg as PropertyKey];
  }
  return cur;
}

function fmtBound(n: number | bigint): string {
  return typeof n === 'number' && Number.isInteger(n) && Math.abs(n) >= 10_000
    ? n.toLocaleString('en-US')
    : String(n);
}

/** Converts zod issues to project issues; `root` and `data` let unknown keys get suggestions. */
export function toIssues(
  issues: ZodIssue[],
  root: z.core.$ZodType,
  data: unknown,
  prefix: PropertyKey[] = [],
): Issue[] {
  const out: Issue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    const found = 'input' in issue ? issue.input : inputAt(data, path);
    switch (issue.code) {
      case 'unrecognized_keys': {
        const known = knownKeysAt(root, path, data);
        for (const key of issue.keys) {
          const hint = suggest(key, known);
          out.push({
            path: jsonPath([...path, key]),
            message: `unknown key${hint ? ` (did you mean "${hint}"?)` : ''}; expected one of: ${known.join(', ')}`,
          });
        }
        break;
      }
      case 'invalid_type':
        out.push({
          path: jsonPath(path),
          message:
            found === undefined
              ? `required: expected ${issue.expected}, found nothing (the field is missing)`
              : `expected ${issue.expected}${issue.expected === 'number' ? '' : ''}, found ${describeValue(found)}`,
        });
        break;
      case 'too_small':
      case 'too_big': {
        const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
        const rel =
          issue.code === 'too_small'
            ? issue.inclusive
              ? 'at least'
              : 'greater than'
            : issue.inclusive
              ? 'at most'
              : 'less than';
        const what =
          issue.origin === 'array'
            ? `an array of ${rel} ${fmtBound(bound)} items`
            : issue.origin === 'string'
              ? `a string of ${rel} ${fmtBound(bound)} characters`
              : `a number ${rel} ${fmtBound(bound)}`;
        out.push({ path: jsonPath(path), message: `expected ${what}, found ${describeValue(found)}` });
        break;
      }
      case 'not_multiple_of':
        out.push({
          path: jsonPath(path),
          message: `expected a multiple of ${issue.divisor}, found ${describeValue(found)}`,
        });
        break;
      case 'invalid_value': {
        const hint = typeof found === 'string' ? suggest(found, issue.values.map(String)) : undefined;
        out.push({
          path: jsonPath(path),
          message:
            `${found === undefined ? 'required: ' : ''}expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, found ${describeValue(found)}` +
            (hint ? ` (did you mean "${hint}"?)` : ''),
        });
        break;
      }
      case 'invalid_format':
        out.push({
          path: jsonPath(path),
          message: `expected ${issue.message ?? issue.format}, found ${describeValue(found)}`,
        });
        break;
      case 'invalid_union': {
        if ('discriminator' in issue && (issue as { note?: string }).note === 'No matching discriminator') {
          const disc = (issue as unknown as { discriminator: string; options: unknown[] }).discriminator;
          const opts = (issue as unknown as { options: unknown[] }).options;
          const isDiscPath = path[path.length - 1] === disc;
          const p = isDiscPath ? path : [...path, disc];
          out.push({
            path: jsonPath(p),
            message: `expected one of ${opts.map((v) => JSON.stringify(v)).join(', ')}, found ${describeValue(inputAt(data, p))}`,
          });
          break;
        }
        out.push(...unionIssues(issue as unknown as { errors: ZodIssue[][] }, path, found, root, data));
        break;
      }
      default:
        out.push({ path: jsonPath(path), message: issue.message });
    }
  }
  return out;
}

function unionIssues(
  issue: { errors: ZodIssue[][] },
  path: PropertyKey[],
  found: unknown,
  root: z.core.$ZodType,
  data: unknown,
): Issue[] {
  const branches = issue.errors;
  // A branch that failed on the value's own type (e.g. "expected object" for a string) is not the one meant.
  const plausible = branches.filter(
    (b) => !b.some((i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_value')),
  );
  if (plausible.length > 0) {
    const best = plausible.reduce((a, b) => (b.length < a.length ? b : a));
    return toIssues(best, root, data, path);
  }
  const alternatives: string[] = [];
  for (const b of branches) {
    for (const i of b.filter((x) => x.path.length === 0)) {
      if (i.code === 'invalid_value')
        alternatives.push(`one of ${i.values.map((v) => JSON.stringify(v)).join(', ')}`);
      else if (i.code === 'invalid_type')
        alternatives.push(
          `${i.expected === 'object' ? 'an object' : i.expected === 'array' ? 'an array' : `a ${i.expected}`}`,
        );
    }
  }
  const uniq = [...new Set(alternatives)];
  const values = branches.flatMap((b) =>
    b.flatMap((i) => (i.path.length === 0 && i.code === 'invalid_value' ? i.values.map(String) : [])),
  );
  const hint = typeof found === 'string' ? suggest(found, values) : undefined;
  return [
    {
      path: jsonPath(path),
      message: `${found === undefined ? 'required: ' : ''}expected ${uniq.join(' or ')}, found ${describeValue(found)}${hint ? ` (did you mean "${hint}"?)` : ''}`,
    },
  ];
}

/**
 * A zod error of `schema` over `data` as project issues, each path placed where the document sits:
 * `under` a JSON path (a job at `job`: `job.cellId`) or in a `file` (`m.json: phase`).
 */
export function zodErrorIssues(
  error: z.ZodError,
  schema: z.core.$ZodType,
  data: unknown,
  where: { under?: string; file?: string } = {},
): Issue[] {
  return toIssues(error.issues as ZodIssue[], schema, data).map((i) => {
    const inner = i.path === '(root)' ? '' : i.path;
    let path = inner || '(root)';
    if (where.under) path = inner ? `${where.under}${inner.startsWith('[') ? '' : '.'}${inner}` : where.under;
    else if (where.file) path = inner ? `${where.file}: ${inner}` : where.file;
    return { path, message: i.message };
  });
}
