/**
 * Spec rules that catch what would otherwise pass validation and go wrong later: two targets on one existing table,
 * `proportions` read/update that a `readProportions` sweep replaces, and a schedule EventBridge Scheduler would
 * refuse at deploy (its rules: https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html).
 */
import { InputError } from '../../../lib/core/common/errors';
import { validateSpec } from '../../../lib/core/spec';
import { scheduleExpressionIssue, timeZoneIssue } from '../../../lib/core/spec/schedule-expression';
import { baseSpec, withValue } from './fixtures';

function outcome(spec: unknown): { issues: string[]; warnings: string[] } {
  try {
    return { issues: [], warnings: validateSpec(spec).warnings };
  } catch (e) {
    if (e instanceof InputError)
      return { issues: e.issues.map((i) => `${i.path}: ${i.message}`), warnings: [] };
    throw e;
  }
}

const table = (id: string, existingTable: string) => ({
  id,
  kind: 'dynamodb',
  billing: { mode: 'on-demand' },
  existingTable,
});

describe('two targets naming one existingTable', () => {
  const twoOn = (a: string, b: string, execution?: string) => {
    const s = withValue(
      withValue(baseSpec(), 'targets', [table('a', a), table('b', b)]),
      'dataset.load',
      false,
    );
    return execution ? { ...s, execution } : s;
  };

  it("in parallel: refused, naming the second target's field and the first", () => {
    expect(outcome(twoOn('fleetbench-orders', 'fleetbench-orders', 'parallel')).issues).toEqual([
      expect.stringMatching(
        /^targets\[1\]\.existingTable: table "fleetbench-orders" is also targets\[0\]'s: with "execution": "parallel"/,
      ),
    ]);
  });

  it('in sequence (the default): kept, with a warning that the second meets the table as the first left it', () => {
    for (const execution of [undefined, 'sequential']) {
      const r = outcome(twoOn('fleetbench-orders', 'fleetbench-orders', execution));
      expect(r.issues).toEqual([]);
      expect(r.warnings).toContainEqual(
        expect.stringMatching(
          /^targets\[1\]\.existingTable: table "fleetbench-orders" is also targets\[0\]'s/,
        ),
      );
    }
  });

  it('different tables side by side: no finding', () => {
    const r = outcome(twoOn('fleetbench-a', 'fleetbench-b', 'parallel'));
    expect(r.issues).toEqual([]);
    expect(r.warnings.filter((w) => w.includes('is also'))).toEqual([]);
  });
});

describe('proportions with a readProportions sweep', () => {
  it("refuses proportions' read and update, which the sweep replaces, naming each", () => {
    const s = withValue(baseSpec(), 'workload.proportions', { read: 0.5, update: 0.4, readModifyWrite: 0.1 });
    expect(outcome(s).issues).toEqual([
      expect.stringMatching(
        /^workload\.proportions\.read: 0\.5 would be replaced in every cell by workload\.readProportions/,
      ),
      expect.stringMatching(/^workload\.proportions\.update: 0\.4 would be replaced/),
    ]);
  });

  it('keeps the other operations of proportions with a sweep (insert, scan, readModifyWrite, query)', () => {
    const s = withValue(
      withValue(baseSpec(), 'workload.proportions', { readModifyWrite: 0.1 }),
      'workload.readProportions',
      [0.5],
    );
    expect(outcome(s).issues).toEqual([]);
  });
});

describe('schedule: refused at validation as the Scheduler would at deploy', () => {
  const scheduled = (expression: string, timezone?: string) =>
    withValue(baseSpec(), 'schedule', { expression, ...(timezone ? { timezone } : {}) });

  it('rate(): a positive value, singular unit for 1 and plural above', () => {
    expect(scheduleExpressionIssue('rate(0 minutes)')).toMatch(/positive value, found 0/);
    expect(scheduleExpressionIssue('rate(1 hours)')).toMatch(/singular unit: rate\(1 hour\)/);
    expect(scheduleExpressionIssue('rate(5 hour)')).toMatch(/plural unit: rate\(5 hours\)/);
    expect(scheduleExpressionIssue('rate(5 weeks)')).toMatch(/minute\(s\), hour\(s\) or day\(s\)/);
    for (const ok of ['rate(1 minute)', 'rate(15 minutes)', 'rate(1 day)', 'rate(12 hours)'])
      expect(scheduleExpressionIssue(ok)).toBeNull();
  });

  it('cron(): six fields in their ranges, "?" in one of day-of-month and day-of-week', () => {
    expect(scheduleExpressionIssue('cron(bogus)')).toMatch(/six fields .*found 1/);
    expect(scheduleExpressionIssue('cron(0 24 * * ? *)')).toMatch(/hours field "24"/);
    expect(scheduleExpressionIssue('cron(0 2 * * * *)')).toMatch(
      /exactly one of day-of-month \("\*"\) and day-of-week/,
    );
    expect(scheduleExpressionIssue('cron(0 2 ? * ? *)')).toMatch(/exactly one of day-of-month/);
    expect(scheduleExpressionIssue('cron(0 2 * FOO ? *)')).toMatch(/month field "FOO"/);
    expect(scheduleExpressionIssue('cron(0 2 * * ? 1969)')).toMatch(/year field "1969"/);
    expect(scheduleExpressionIssue('cron(0 18 ? * 3#6 *)')).toMatch(/day-of-week field "3#6"/);
    // the forms the guides document: ranges, increments, names, L, W and #
    for (const ok of [
      'cron(0 2 * * ? *)',
      'cron(15 10 ? * 6L 2022-2023)',
      'cron(0/15 * * * ? *)',
      'cron(0 8 1 * ? *)',
      'cron(0 9 ? * MON-FRI *)',
      'cron(0/5 8-17 ? * MON-FRI *)',
      'cron(0 18 ? * 3#2 *)',
      'cron(0 18 ? * MON#1 *)',
      'cron(0 10 L * ? *)',
      'cron(30 9 3W * ? *)',
    ])
      expect([ok, scheduleExpressionIssue(ok)]).toEqual([ok, null]);
  });

  it('timezone: an IANA name as written; an alias the time-zone database knows is kept', () => {
    expect(timeZoneIssue('Mars/Olympus')).toMatch(/expected an IANA time zone .*found "Mars\/Olympus"$/);
    expect(timeZoneIssue('europe/paris')).toMatch(/did you mean "Europe\/Paris"\?/);
    expect(timeZoneIssue('+01:00')).toMatch(/expected an IANA time zone/);
    for (const ok of ['UTC', 'Europe/Paris', 'America/New_York', 'US/Pacific', 'Etc/GMT+5'])
      expect([ok, timeZoneIssue(ok)]).toEqual([ok, null]);
  });

  it('validate names the field: schedule.expression, schedule.timezone', () => {
    expect(outcome(scheduled('rate(0 minutes)')).issues).toEqual([
      expect.stringMatching(/^schedule\.expression: expected a positive value/),
    ]);
    expect(outcome(scheduled('cron(bogus)')).issues).toEqual([
      expect.stringMatching(/^schedule\.expression: expected six fields/),
    ]);
    expect(outcome(scheduled('cron(0 2 * * ? *)', 'Mars/Olympus')).issues).toEqual([
      expect.stringMatching(/^schedule\.timezone: expected an IANA time zone/),
    ]);
    expect(outcome(scheduled('cron(0 2 * * ? *)', 'Europe/Paris')).issues).toEqual([]);
  });
});
