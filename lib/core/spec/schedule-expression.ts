/**
 * A spec's `schedule` checked as EventBridge Scheduler checks it at deploy, so a bad expression or time zone is
 * refused by `validate` rather than by CloudFormation mid-deploy. The rules are the Scheduler's
 * (https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html): `rate(value unit)` with a positive
 * integer and minute(s) / hour(s) / day(s), singular for 1 and plural above (EventBridge's rule for rate expressions,
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rate-expressions.html: `rate(1 hours)` and `rate(5 hour)`
 * are invalid; the singular form is the one valid everywhere); `cron(minutes hours day-of-month month
 * day-of-week year)`, six fields, with `?` in exactly one of day-of-month and day-of-week. Time zones are IANA names
 * (the runtime's list, Intl.supportedValuesOf('timeZone'), and the aliases its time-zone database resolves).
 */
import type { Issue } from '../common/errors';
import type { RunSpec } from './schema';

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface CronField {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
  /** the field's own special forms besides numbers, ranges, `*` and increments */
  special?: RegExp;
}

// the table of cron fields, values and wildcards of the Scheduler's "Cron-based schedules"
const FIELDS: readonly CronField[] = [
  { name: 'minutes', min: 0, max: 59 },
  { name: 'hours', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31, special: /^(\?|L|LW|\d{1,2}W)$/ },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  {
    name: 'day-of-week',
    min: 1,
    max: 7,
    names: DAYS,
    special: /^(\?|L|([1-7]|SUN|MON|TUE|WED|THU|FRI|SAT)(L|#[1-5]))$/,
  },
  { name: 'year', min: 1970, max: 2199 },
];

/** A value of a field: a number in its range, or one of its names (JAN, SUN). */
function valueOf(text: string, f: CronField): number | null {
  const i = f.names?.indexOf(text.toUpperCase()) ?? -1;
  if (i >= 0) return f.min + i;
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return n >= f.min && n <= f.max ? n : null;
}

/** One comma-separated element of a field: `*`, a value, a range `a-b`, either with an increment `/n`. */
function elementOk(e: string, f: CronField): boolean {
  if (f.special?.test(e.toUpperCase())) return true;
  const [base, step, ...rest] = e.split('/');
  if (rest.length || base === undefined) return false;
  if (step !== undefined && !(/^\d+$/.test(step) && Number(step) >= 1)) return false;
  if (base === '*') return true;
  const [a, b, ...more] = base.split('-');
  if (more.length) return false;
  const lo = valueOf(a ?? '', f);
  if (lo === null) return false;
  return b === undefined || valueOf(b, f) !== null;
}

function cronIssue(body: string): string | null {
  const fields = body.trim().split(/\s+/);
  if (fields.length !== 6)
    return `expected six fields (minutes hours day-of-month month day-of-week year), found ${fields.length}`;
  for (const [i, f] of FIELDS.entries()) {
    const text = fields[i]!;
    const bad = text.split(',').find((e) => !elementOk(e, f));
    if (bad !== undefined)
      return `the ${f.name} field "${text}" is not one the Scheduler takes (${f.min}-${f.max}${f.names ? ` or ${f.names[0]}-${f.names.at(-1)}` : ''}, with , - * /${f.special ? ' and its own ? L W #' : ''})`;
  }
  const [dom, dow] = [fields[2], fields[4]];
  if ((dom === '?') === (dow === '?'))
    return `give "?" in exactly one of day-of-month ("${dom}") and day-of-week ("${dow}"): the Scheduler takes a value or * in one of them only`;
  return null;
}

function rateIssue(body: string): string | null {
  const m = /^\s*(\d+)\s+(minute|minutes|hour|hours|day|days)\s*$/.exec(body);
  if (!m) return 'expected rate(<value> <unit>): a positive integer and minute(s), hour(s) or day(s)';
  const n = Number(m[1]);
  if (n < 1) return `expected a positive value, found ${m[1]}`;
  const plural = m[2]!.endsWith('s');
  if (n === 1 && plural) return `a value of 1 takes the singular unit: rate(1 ${m[2]!.slice(0, -1)})`;
  if (n > 1 && !plural) return `a value above 1 takes the plural unit: rate(${n} ${m[2]}s)`;
  return null;
}

/** The expression's problem, or null. */
export function scheduleExpressionIssue(expression: string): string | null {
  const m = /^(cron|rate)\((.*)\)$/.exec(expression);
  if (!m) return 'expected an EventBridge Scheduler expression: cron(...) or rate(...)';
  return m[1] === 'cron' ? cronIssue(m[2]!) : rateIssue(m[2]!);
}

const ZONES = new Set(Intl.supportedValuesOf('timeZone'));

/** The time zone's problem, or null: an IANA name the runtime knows, as written (not a case variant of one). */
export function timeZoneIssue(zone: string): string | null {
  if (ZONES.has(zone)) return null;
  let resolved: string | undefined;
  try {
    // aliases (UTC, US/Pacific, Asia/Calcutta) are resolved by the time-zone database, but are not in the list
    if (/^[A-Za-z]/.test(zone))
      resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    resolved = undefined;
  }
  if (resolved !== undefined && resolved.toLowerCase() !== zone.toLowerCase()) return null;
  if (resolved === zone) return null;
  const meant = resolved ?? [...ZONES].find((z) => z.toLowerCase() === zone.toLowerCase());
  return `expected an IANA time zone such as "UTC" or "Europe/Paris", found "${zone}"${meant ? ` (did you mean "${meant}"?)` : ''}`;
}

/** The spec's `schedule`: its expression and time zone as the Scheduler would take them. */
export function scheduleChecks(spec: RunSpec, issues: Issue[]): void {
  if (!spec.schedule) return;
  const expression = scheduleExpressionIssue(spec.schedule.expression);
  if (expression) issues.push({ path: 'schedule.expression', message: expression });
  const zone = timeZoneIssue(spec.schedule.timezone);
  if (zone) issues.push({ path: 'schedule.timezone', message: zone });
}
