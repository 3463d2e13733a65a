import { InputError } from '../../../lib/core/common/errors';
import { validateSpec } from '../../../lib/core/spec';
import { baseSpec, withValue } from './fixtures';

function issuesOf(data: unknown): { path: string; message: string }[] {
  try {
    validateSpec(data);
  } catch (err) {
    if (err instanceof InputError) return err.issues;
    throw err;
  }
  throw new Error('expected the spec to be rejected');
}

const b = baseSpec;
const ddb2 = { id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' } };

// [description, spec, expected path, regex on the message]
const cases: [string, unknown, string, RegExp][] = [
  ['name with capitals', withValue(b(), 'name', 'Unit'), 'name', /lower-case name.*found the string "Unit"/],
  ['missing name', withValue(b(), 'name', undefined), 'name', /required.*missing/],
  ['region malformed', withValue(b(), 'region', 'useast1'), 'region', /AWS region/],
  [
    'baseline not a run id',
    withValue(b(), 'baseline', 'Nightly Run'),
    'baseline',
    /a run id \(lower-case letters, digits and "-"\).*"Nightly Run"/,
  ],
  ['no targets', withValue(b(), 'targets', []), 'targets', /at least 1 items/],
  [
    'unknown target kind',
    withValue(b(), 'targets', [{ id: 'x', kind: 'dynamo' }]),
    'targets[0].kind',
    /one of "dynamodb", "scylla-ec2", "cassandra-ec2", "external", "keyspaces".*"dynamo"/,
  ],
  [
    'rcu as a string',
    withValue(b(), 'targets.0.billing.rcu', '1000'),
    'targets[0].billing.rcu',
    /expected number, found the string "1000"/,
  ],
  ['wcu missing', withValue(b(), 'targets.0.billing.wcu', undefined), 'targets[0].billing.wcu', /required/],
  [
    'rcu zero',
    withValue(b(), 'targets.0.billing.rcu', 0),
    'targets[0].billing.rcu',
    /greater than 0.*found number 0/,
  ],
  [
    'unknown billing mode',
    withValue(b(), 'targets.0.billing.mode', 'ondemand'),
    'targets[0].billing.mode',
    /"provisioned", "on-demand".*"ondemand"/,
  ],
  [
    'misspelt key with suggestion',
    withValue(b(), 'targets.0.tableclass', 'STANDARD'),
    'targets[0].tableclass',
    /unknown key \(did you mean "tableClass"\?\)/,
  ],
  ['unknown top-level key', withValue(b(), 'loader', {}), 'loader', /did you mean "loaders"/],
  ['unknown key, nothing close', withValue(b(), 'zzzzzzzz', 1), 'zzzzzzzz', /^unknown key; expected one of/],
  [
    'bad table class',
    withValue(b(), 'targets.0.tableClass', 'IA'),
    'targets[0].tableClass',
    /STANDARD_INFREQUENT_ACCESS/,
  ],
  [
    'duplicate target ids',
    withValue(b(), 'targets', [b().targets && (b().targets as unknown[])[0], ddb2]),
    'targets[1].id',
    /duplicate target id "ddb".*targets\[0\]/,
  ],
  ['target id with capitals', withValue(b(), 'targets.0.id', 'DDB'), 'targets[0].id', /lower-case id/],
  [
    'expectedLatencyMs negative',
    withValue(b(), 'targets.0.expectedLatencyMs', -1),
    'targets[0].expectedLatencyMs',
    /greater than 0/,
  ],
  [
    'external without price',
    withValue(b(), 'targets', [
      { id: 'x', kind: 'external', protocol: 'dynamodb', endpoints: ['http://h:8000'] },
    ]),
    'targets[0].price',
    /required/,
  ],
  [
    'external plaintext secret key',
    withValue(b(), 'targets', [
      {
        id: 'x',
        kind: 'external',
        protocol: 'cql',
        endpoints: ['h:9042'],
        price: { usdPerHour: 1 },
        password: 'x',
      },
    ]),
    'targets[0].password',
    /unknown key/,
  ],
  [
    'scylla RF above node count',
    withValue(b(), 'targets', [{ id: 's', kind: 'scylla-ec2', nodes: 2, replicationFactor: 3 }]),
    'targets[0].replicationFactor',
    /at most the node count \(2\), found 3/,
  ],
  [
    'scylla bad AMI id',
    withValue(b(), 'targets', [{ id: 's', kind: 'scylla-ec2', ami: { id: 'ami-xyz' } }]),
    'targets[0].ami.id',
    /AMI id/,
  ],
  [
    'recordCount zero',
    withValue(b(), 'dataset.recordCount', 0),
    'dataset.recordCount',
    /greater than 0.*found number 0/,
  ],
  ['recordCount fractional', withValue(b(), 'dataset.recordCount', 10.5), 'dataset.recordCount', /int/],
  [
    'recordCount beyond YCSB int',
    withValue(b(), 'dataset.recordCount', 3_000_000_000),
    'dataset.recordCount',
    /at most 2,147,483,647.*32-bit int.*3,000,000,000/,
  ],
  [
    'unknown base workload',
    withValue(b(), 'workload.base', 'g'),
    'workload.base',
    /"a", "b", "c", "d", "e", "f".*"g"/,
  ],
  [
    'read proportion above 1',
    withValue(b(), 'workload.readProportions', [1.5]),
    'workload.readProportions[0]',
    /at most 1.*1.5/,
  ],
  [
    'read proportion leaves no room for inserts',
    withValue(withValue(b(), 'workload.base', 'd'), 'workload.readProportions', [0.5, 0.99]),
    'workload.readProportions[1]',
    /at most 0.95.*take 0.05.*found 0.99/,
  ],
  [
    'explicit proportions not summing to 1',
    withValue(withValue(b(), 'workload.readProportions', undefined), 'workload.proportions', {
      read: 0.5,
      update: 0.4,
    }),
    'workload.proportions',
    /summing to 1.*found 0.9/,
  ],
  [
    'duplicate read proportion',
    withValue(b(), 'workload.readProportions', [0.5, 0.5]),
    'workload.readProportions[1]',
    /duplicate read proportion 0.5/,
  ],
  [
    'target zero',
    withValue(b(), 'workload.targetOpsPerSec', [100, 0]),
    'workload.targetOpsPerSec[1]',
    /greater than 0/,
  ],
  [
    'empty targets list',
    withValue(b(), 'workload.targetOpsPerSec', []),
    'workload.targetOpsPerSec',
    /at least 1 items/,
  ],
  [
    'staircase stop below start',
    withValue(b(), 'workload.targetOpsPerSec', { start: 1000, stop: 500, step: 100 }),
    'workload.targetOpsPerSec.stop',
    /at least start \(1,000\), found 500/,
  ],
  [
    'target below process count',
    withValue(b(), 'workload.targetOpsPerSec', [1, 200]),
    'workload.targetOpsPerSec[0]',
    /1 ops\/s cannot be split over the 2 processes of target "ddb"/,
  ],
  [
    'unknown distribution with suggestion',
    withValue(b(), 'workload.distributions', ['zipfan']),
    'workload.distributions[0]',
    /did you mean "zipfian"/,
  ],
  [
    'hotspot data fraction out of (0,1)',
    withValue(b(), 'workload.distributions', [{ type: 'hotspot', dataFraction: 1, opFraction: 0.9 }]),
    'workload.distributions[0].dataFraction',
    /less than 1.*found number 1/,
  ],
  [
    'hotspot op fraction zero',
    withValue(b(), 'workload.distributions', [{ type: 'hotspot', dataFraction: 0.1, opFraction: 0 }]),
    'workload.distributions[0].opFraction',
    /greater than 0/,
  ],
  [
    'hotspot object without fractions',
    withValue(b(), 'workload.distributions', [{ type: 'hotspot' }]),
    'workload.distributions[0].dataFraction',
    /required/,
  ],
  [
    'duplicate distribution',
    withValue(b(), 'workload.distributions', ['uniform', { type: 'uniform' }]),
    'workload.distributions[1]',
    /duplicate distribution uniform/,
  ],
  [
    'warm-up as long as the cell',
    withValue(b(), 'workload.warmupSeconds', 60),
    'workload.warmupSeconds',
    /less than durationSeconds \(60\), found 60/,
  ],
  [
    'duration zero',
    withValue(b(), 'workload.durationSeconds', 0),
    'workload.durationSeconds',
    /greater than 0/,
  ],
  [
    'bad measurement',
    withValue(b(), 'workload.measurement', 'raw'),
    'workload.measurement',
    /"intended", "op", "both"/,
  ],
  [
    'managed property override',
    withValue(b(), 'workload.extraProperties', { target: '5' }),
    'workload.extraProperties.target',
    /set by fleetbench/,
  ],
  [
    'loader count neither auto nor number',
    withValue(b(), 'loaders.count', 'many'),
    'loaders.count',
    /"auto"|number/,
  ],
  ['headroom below 1', withValue(b(), 'loaders.headroom', 0.5), 'loaders.headroom', /at least 1.*0.5/],
  [
    'threads zero',
    withValue(b(), 'loaders.threadsPerProcess', 0),
    'loaders.threadsPerProcess',
    /greater than 0/,
  ],
  ['budget negative', withValue(b(), 'budget', { maxUsd: -5 }), 'budget.maxUsd', /greater than 0/],
  [
    'schedule not a scheduler expression',
    withValue(b(), 'schedule', { expression: '0 2 * * *' }),
    'schedule.expression',
    /cron\(...\) or rate\(...\)/,
  ],
  ['reserved tag prefix', withValue(b(), 'tags', { 'aws:owner': 'me' }), 'tags["aws:owner"]', /reserved/],
  ['document not an object', [1, 2], '(root)', /expected object, found an array/],
  [
    'cassandra-ec2: a version the node asset does not ship',
    withValue(b(), 'targets', [{ id: 'cass', kind: 'cassandra-ec2', version: '4.1.3' }]),
    'targets[0].version',
    /expected one of "5\.0\.6", found the string "4\.1\.3"/,
  ],
  [
    'cassandra-ec2: a data volume below 10 GB',
    withValue(b(), 'targets', [{ id: 'cass', kind: 'cassandra-ec2', volume: { sizeGb: 5 } }]),
    'targets[0].volume.sizeGb',
    /at least 10, found number 5/,
  ],
  [
    'cassandra-ec2: replication factor above the node count',
    withValue(b(), 'targets', [{ id: 'cass', kind: 'cassandra-ec2', nodes: 2, replicationFactor: 3 }]),
    'targets[0].replicationFactor',
    /at most the node count \(2\), found 3/,
  ],
  [
    'cassandra-ec2: an instance type whose memory is unknown (the heap follows it)',
    withValue(b(), 'targets', [{ id: 'cass', kind: 'cassandra-ec2', instanceType: 'x2gd.large' }]),
    'targets[0].instanceType',
    /memory fleetbench knows.*found "x2gd\.large"/,
  ],
  [
    'cassandra-ec2: a consistency level CQL targets do not take',
    withValue(b(), 'targets', [{ id: 'cass', kind: 'cassandra-ec2', cql: { consistency: 'EACH_QUORUM' } }]),
    'targets[0].cql.consistency',
    /expected one of "ONE", "QUORUM", "LOCAL_QUORUM", "ALL", found the string "EACH_QUORUM"/,
  ],
];

describe('invalid run specs', () => {
  it('has at least 25 distinct cases', () => {
    expect(new Set(cases.map((c) => c[0])).size).toBeGreaterThanOrEqual(25);
  });

  it.each(cases)('%s', (_name, spec, path, message) => {
    const issues = issuesOf(spec);
    const match = issues.find((i) => i.path === path);
    if (!match)
      throw new Error(
        `no issue at ${path}; got:\n${issues.map((i) => `${i.path}: ${i.message}`).join('\n')}`,
      );
    expect(match.message).toMatch(message);
  });

  it('reports every problem at once, one per line', () => {
    let spec = withValue(b(), 'name', 'X');
    spec = withValue(spec, 'dataset.recordCount', -1);
    spec = withValue(spec, 'workload.measurement', 'raw');
    spec = withValue(spec, 'loaderz', {});
    const err = (() => {
      try {
        validateSpec(spec);
      } catch (e) {
        return e as InputError;
      }
      throw new Error('not rejected');
    })();
    expect(err.issues.map((i) => i.path).sort()).toEqual([
      'dataset.recordCount',
      'loaderz',
      'name',
      'workload.measurement',
    ]);
    expect(err.message.split('\n')).toHaveLength(4);
    for (const line of err.message.split('\n')) expect(line).toMatch(/^[^:]+: .+/);
  });
});

describe('a status interval longer than the measured window', () => {
  const base = {
    name: 'window',
    targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' } }],
    dataset: { recordCount: 100 },
    workload: { readProportions: [0.5], targetOpsPerSec: [10], distributions: ['uniform'] },
  };
  const warningsOf = (w: Record<string, unknown>) =>
    validateSpec({ ...base, workload: { ...base.workload, ...w } }).warnings.filter((x) =>
      x.startsWith('workload.statusIntervalSeconds'),
    );

  it('warns, naming the field, the interval and the window, when warm-up leaves less than one status interval', () => {
    expect(warningsOf({ durationSeconds: 5, warmupSeconds: 1 })).toEqual([
      'workload.statusIntervalSeconds: 10 s is longer than the measured window (4 s after warm-up and cool-down): ' +
        'YCSB writes an HDR interval per status tick, so the window may hold none and the cell measure no operation',
    ]);
  });

  it('is quiet when the window holds a status interval, or when there is no warm-up to cut the first one', () => {
    expect(warningsOf({ durationSeconds: 5, warmupSeconds: 1, statusIntervalSeconds: 1 })).toEqual([]);
    expect(warningsOf({ durationSeconds: 5, warmupSeconds: 0 })).toEqual([]);
  });
});
