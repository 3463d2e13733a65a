/**
 * What the loader agent, AWS or Maven would refuse later, after nodes and loaders were paid for, is refused by
 * `validate` (issue 26, items 7, 9, 10 and 11), naming the JSON path and what was expected.
 */
import { InputError } from '../../../lib/core/common/errors';
import { validateSpec } from '../../../lib/core/spec';
import { MAX_CELLS, cellCount } from '../../../lib/core/spec/grid-size';
import { MAX_SPEC_TAGS } from '../../../lib/core/spec/tags';
import { parseJob } from '../../../lib/core/contract/job';
import { planRun } from '../../../lib/core/plan';
import { baseSpec, withValue } from './fixtures';

function issuesOf(data: unknown): string[] {
  try {
    validateSpec(data);
  } catch (err) {
    if (err instanceof InputError) return err.issues.map((i) => `${i.path}: ${i.message}`);
    throw err;
  }
  return [];
}

const custom = (binding: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: 'cb',
  kind: 'external',
  protocol: 'custom',
  endpoints: ['cb.example.com'],
  binding: {
    dbClass: 'site.ycsb.db.couchbase2.Couchbase2Client',
    jars: ['s3://b/bindings/cb.jar'],
    ...binding,
  },
  price: { usdPerHour: 1 },
  ...extra,
});

describe('workload.extraProperties: the loader agent rules', () => {
  it.each([
    ['db', /"db" is set by the loader agent itself/],
    ['fleetbench.binding.classpath', /"fleetbench\.binding\.classpath" is set by the loader agent itself/],
    ['dotransactions', /is set by the loader agent itself/],
    ['my key', /expected a YCSB property name the loader agent accepts.*found "my key"/],
    ['a\nb', /expected a YCSB property name the loader agent accepts.*found "a\\nb"/],
  ])('refuses %j as the agent would', (key, message) => {
    const found = issuesOf(withValue(baseSpec(), 'workload.extraProperties', { [key]: '1' }));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(message);
    expect(found[0]!.startsWith(`workload.extraProperties`)).toBe(true);
    // the agent's own job check refuses the same key
    const job = {
      runId: 'r',
      cellId: 'c',
      loaderIndex: 0,
      phase: 'run',
      processes: [{ operationcount: 1, [key]: '1' }],
      durationSeconds: 1,
      outputPrefix: 'file:///tmp/x',
    };
    expect(parseJob(job).issues).not.toEqual([]);
  });

  it('accepts a property the agent accepts', () => {
    expect(
      issuesOf(
        withValue(baseSpec(), 'workload.extraProperties', { core_workload_insertion_retry_limit: '3' }),
      ),
    ).toEqual([]);
  });
});

describe("tags: AWS's rules, counting fleetbench's own", () => {
  it.each([
    ['a key with $( )', { '$(id)': 'x' }, 'tags["$(id)"]', /AWS's tag characters/],
    [
      'a value with $( )',
      { team: '$(id)' },
      'tags.team',
      /expected a tag value of letters.*found "\$\(id\)"/,
    ],
    ['a value of 200 emoji', { team: '😀'.repeat(200) }, 'tags.team', /tag value/],
    ['an aws: key', { 'aws:x': 'y' }, 'tags["aws:x"]', /reserved by AWS/],
    ['an aws: value', { team: 'aws:x' }, 'tags.team', /reserved by AWS/],
    [
      "one of fleetbench's own",
      { 'fleetbench:run-id': 'x' },
      'tags["fleetbench:run-id"]',
      /fleetbench's own tags/,
    ],
    ['"@" on a DynamoDB table', { owner: 'me@example.com' }, 'tags.owner', /DynamoDB refuses it/],
  ])('refuses %s', (_what, tags, path, message) => {
    const found = issuesOf(withValue(baseSpec(), 'tags', tags));
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]!.startsWith(`${path}: `)).toBe(true);
    expect(found[0]).toMatch(message);
  });

  it("refuses more tags than a resource holds beside fleetbench's own, and accepts that many", () => {
    const tags = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    expect(MAX_SPEC_TAGS).toBe(43);
    expect(issuesOf(withValue(baseSpec(), 'tags', tags(43)))).toEqual([]);
    expect(issuesOf(withValue(baseSpec(), 'tags', tags(60)))).toEqual([
      'tags: expected at most 43 tags: AWS allows 50 per resource and fleetbench adds up to 7 of its own ' +
        '(fleetbench:run-id, fleetbench:spec, fleetbench:expires-at, fleetbench:role, fleetbench:target, ' +
        'fleetbench:node-index, Name), found 60',
    ]);
  });

  it('accepts letters of any script, spaces and the allowed symbols', () => {
    expect(issuesOf(withValue(baseSpec(), 'tags', { 'cost-center': 'Équipe données 42 _.:/=+-' }))).toEqual(
      [],
    );
  });
});

describe('secrets in plain text', () => {
  it.each([
    ['couchbase.password', 'hunter2'],
    ['my.api.token', 'abc'],
    ['clientSecret', 'abc'],
    ['cql.truststorePassword', 'abc'],
  ])(
    'refuses the binding property %s, pointing to Secrets Manager, without echoing the value',
    (key, value) => {
      const found = issuesOf(withValue(baseSpec(), 'targets', [custom({ properties: { [key]: value } })]));
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(
        new RegExp(
          `^targets\\[0\\]\\.binding\\.properties(\\.${key.replace(/\./g, '\\.')}|\\["${key}"\\]): a property named like a secret`,
        ),
      );
      expect(found[0]).toMatch(
        /Secrets Manager secret named fleetbench\/\.\.\. .*targets\[0\]\.credentialsSecretArn/,
      );
      expect(found[0]).not.toContain(value);
    },
  );

  it('refuses a secret in workload.extraProperties', () => {
    const found = issuesOf(withValue(baseSpec(), 'workload.extraProperties', { 'redis.password': 'p' }));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      /^workload\.extraProperties\["redis\.password"\]: a property named like a secret.*Secrets Manager/,
    );
  });

  it("refuses a MongoDB URL's query credentials and a URL with userinfo among binding properties", () => {
    const mongo = {
      id: 'm',
      kind: 'external',
      protocol: 'mongodb',
      endpoints: ['mongodb+srv://cluster0.example.mongodb.net/ycsb?authSource=admin&password=s3cret'],
      price: { usdPerHour: 1 },
    };
    const found = issuesOf(
      withValue(baseSpec(), 'targets', [
        mongo,
        custom({ properties: { 'mongodb.url': 'mongodb://u:s3cret@h/db' } }),
      ]),
    );
    expect(found).toEqual([
      expect.stringMatching(
        /^targets\[0\]\.endpoints\[0\]: a URL whose query carries credentials \("password"\): put it in a Secrets Manager/,
      ),
      expect.stringMatching(
        /^targets\[1\]\.binding\.properties\["mongodb\.url"\]: a URL with credentials \(user:password@\)/,
      ),
    ]);
    expect(found.join(' ')).not.toContain('s3cret');
    const aws = {
      ...mongo,
      endpoints: ['mongodb+srv://c.example.net/?authMechanismProperties=AWS_SESSION_TOKEN:t0k'],
    };
    expect(issuesOf(withValue(baseSpec(), 'targets', [aws]))).toEqual([
      expect.stringMatching(/^targets\[0\]\.endpoints\[0\]: a URL whose query carries credentials/),
    ]);
  });

  it('accepts properties that are not secrets', () => {
    expect(
      issuesOf(
        withValue(baseSpec(), 'targets', [
          custom({ properties: { 'couchbase.host': 'h', 'couchbase.bucket': 'ycsb' } }),
        ]),
      ),
    ).toEqual([]);
  });
});

describe('binding Maven coordinates name one release', () => {
  it.each([
    ['com.example:binding:RELEASE', /"RELEASE" is a Maven meta-version/],
    ['com.example:binding:LATEST', /"LATEST" is a Maven meta-version/],
    ['com.example:binding:1.2-SNAPSHOT', /"1\.2-SNAPSHOT" is a snapshot/],
  ])('refuses %s by name', (coords, message) => {
    const found = issuesOf(
      withValue(baseSpec(), 'targets', [custom({ maven: ['org.ok:fine:1.0', coords] })]),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      /^targets\[0\]\.binding\.maven\[1\]: expected group:artifact:version with a fixed release version/,
    );
    expect(found[0]).toMatch(message);
  });

  it('refuses a jar URI with a .. segment', () => {
    const found = issuesOf(
      withValue(baseSpec(), 'targets', [custom({ jars: ['s3://b/bindings/../x.jar'] })]),
    );
    expect(found).toEqual([
      expect.stringMatching(
        /^targets\[0\]\.binding\.jars\[0\]: expected the URI of one \.jar, found a "\." or "\.\." path segment/,
      ),
    ]);
  });
});

describe('the cell limit', () => {
  /** 11 targets × 5 distributions × 11 read proportions × 1,000 steps × 20 repeats = 12.1 million cells. */
  const huge = () => {
    const s = baseSpec();
    const t = (s.targets as Record<string, unknown>[])[0]!;
    s.targets = Array.from({ length: 11 }, (_, i) => ({ ...t, id: `ddb${i}` }));
    s.workload = {
      ...(s.workload as object),
      distributions: ['uniform', 'zipfian', 'latest', 'sequential', 'exponential'],
      readProportions: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1],
      targetOpsPerSec: { start: 1000, stop: 1_000_000, step: 1000 },
      repeats: 20,
    };
    return s;
  };

  it('refuses a 12.1-million-cell grid without expanding it, naming the fields and the limit', () => {
    const found = issuesOf(huge());
    expect(found).toEqual([
      `workload.targetOpsPerSec: expected a grid of at most ${MAX_CELLS.toLocaleString('en-US')} cells, found 12,100,000 ` +
        '(targets 11 × workload.distributions 5 × workload.readProportions 11 × workload.targetOpsPerSec 1,000 × ' +
        'workload.repeats 20): split the spec into smaller runs (README, "Rules checked before anything is paid for")',
    ]);
  });

  it('counts the grid as the planner expands it', () => {
    const spec = validateSpec(baseSpec()).spec;
    expect(cellCount(spec)).toBe(8);
    const s = baseSpec();
    (s.workload as Record<string, unknown>).targetOpsPerSec = { start: 100, stop: 1050, step: 100 };
    (s.workload as Record<string, unknown>).repeats = 2;
    expect(cellCount(validateSpec(s).spec)).toBe(2 * 2 * 10 * 2);
  });
});

describe('TLS to external Redis and CQL targets', () => {
  const target = (protocol: 'redis' | 'cql', extra: Record<string, unknown> = {}) => ({
    id: 'db',
    kind: 'external',
    protocol,
    endpoints: ['db.example.com:6380'],
    price: { usdPerHour: 1 },
    ...extra,
  });

  it('is on when the spec does not say', () => {
    const plan = (t: unknown) =>
      planRun(validateSpec(withValue(baseSpec(), 'targets', [t])).spec, { runId: 'r1' }).bindings.db!
        .properties;
    expect(plan(target('redis'))['redis.tls']).toBe('true');
    expect(plan(target('redis', { redis: { cluster: true } }))['redis.tls']).toBe('true');
    expect(plan(target('cql'))['cql.ssl']).toBe('true');
    expect(plan(target('cql', { cql: { tls: false } }))['cql.ssl']).toBe('false');
  });

  it('warns, naming the field, when the spec turns it off', () => {
    const warned = (t: unknown) => validateSpec(withValue(baseSpec(), 'targets', [t])).warnings;
    expect(warned(target('redis', { redis: { tls: false } }))).toEqual([
      expect.stringMatching(
        /^targets\[0\]\.redis\.tls: false: the loaders reach db\.example\.com:6380 without TLS/,
      ),
    ]);
    expect(warned(target('cql', { cql: { tls: false } }))).toEqual([
      expect.stringMatching(/^targets\[0\]\.cql\.tls: false: .*plain text/),
    ]);
    expect(warned(target('redis'))).toEqual([]);
  });

  it('refuses CQL settings on another protocol', () => {
    expect(issuesOf(withValue(baseSpec(), 'targets', [target('redis', { cql: { tls: true } })]))).toEqual([
      'targets[0].cql: CQL settings on a "redis" target: remove them or set protocol "cql"',
    ]);
  });
});
