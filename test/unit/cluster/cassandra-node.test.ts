/**
 * The cassandra-ec2 node's pure parts: memory → heap by Cassandra's cassandra-env.sh rule, evenly spaced
 * Murmur3 tokens, the bootstrap script (parsed by bash, refusing unsafe values, parameters replaceable
 * without touching the body), the CQL v4 frames, and one version for the asset, the spec and the POM.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  CASSANDRA_VERSION,
  cassandraBootstrapScript,
  cassandraHeapMb,
  ec2NodeParams,
  initialToken,
  instanceMemoryMib,
  scriptVariable,
  withParameters,
  type CassandraNodeParams,
} from '../../../lib/core/targets/cassandra-ec2/node';
import { cassandraJobProperties } from '../../../lib/core/targets/nodes/cluster';
import { parseFrame, queryFrame, startupFrame } from '../../../lib/core/targets/nodes/cql-wire';
import { headlineTotals, loadPriceBook, monthlyCost } from '../../../lib/core/cost';
import { validateSpec } from '../../../lib/core/spec';
import { CASSANDRA_VERSIONS, type CassandraEc2Target } from '../../../lib/core/spec/schema';

const ROOT = path.join(__dirname, '../../..');

function target(over: Record<string, unknown> = {}): CassandraEc2Target {
  return validateSpec({
    name: 'c',
    targets: [{ id: 'cass', kind: 'cassandra-ec2', ...over }],
    dataset: { recordCount: 10 },
    workload: { targetOpsPerSec: [10], durationSeconds: 10 },
  }).spec.targets[0] as CassandraEc2Target;
}

describe('heap and memory', () => {
  // max(min(1/2 ram, 1024 MB), min(1/4 ram, 8192 MB)), conf/cassandra-env.sh (worked by hand)
  it.each([
    [2048, 1024], // 1/2 = 1024, 1/4 = 512
    [4096, 1024], // 1/2 capped at 1024; 1/4 = 1024
    [16384, 4096], // c5.2xlarge: 1/4 = 4096
    [65536, 8192], // i4i.2xlarge: 1/4 = 16384, capped at 8192
    [1500, 750], // a small machine: 1/2 = 750 beats 1/4 = 375
    [62464, 8192], // i3.2xlarge (61 GiB)
  ])('%i MiB of memory → %i MB of heap', (mem, heap) => {
    expect(cassandraHeapMb(mem)).toBe(heap);
  });

  it('knows the memory of the price book types by family and size; not of others', () => {
    expect(instanceMemoryMib('i4i.2xlarge')).toBe(64 * 1024);
    expect(instanceMemoryMib('i4i.4xlarge')).toBe(128 * 1024);
    expect(instanceMemoryMib('i3.2xlarge')).toBe(61 * 1024);
    expect(instanceMemoryMib('c5.large')).toBe(4 * 1024);
    expect(instanceMemoryMib('r6i.xlarge')).toBe(32 * 1024);
    expect(instanceMemoryMib('x2idn.16xlarge')).toBeNull();
    // metal sizes by the one vCPU parser (c5.metal: 96 vCPUs, 192 GiB, https://docs.aws.amazon.com/ec2/latest/instancetypes/co.html)
    expect(instanceMemoryMib('c5.metal')).toBe(192 * 1024);
    expect(instanceMemoryMib('c5.jumbo')).toBeNull();
  });
});

describe('tokens', () => {
  it('spaces n nodes evenly over the Murmur3 range (the classic 3-node values)', () => {
    expect([0, 1].map((i) => initialToken(i, 2))).toEqual(['-9223372036854775808', '0']);
    expect([0, 1, 2].map((i) => initialToken(i, 3))).toEqual([
      '-9223372036854775808',
      '-3074457345618258603',
      '3074457345618258602',
    ]);
    expect(() => initialToken(3, 3)).toThrow(/outside 0..2/);
  });
});

describe('bootstrap script', () => {
  const params = (over: Partial<CassandraNodeParams> = {}): CassandraNodeParams => ({
    ...ec2NodeParams({
      target: target(),
      runId: 'run1',
      index: 1,
      seedIp: '10.0.0.5',
      asset: 's3://b/k.tar.gz',
    }),
    ...over,
  });

  it('EC2 parameters: seed on port 7000, heap of i4i.2xlarge, EBS data volume, IMDS addresses, systemd', () => {
    const p = params();
    expect(p).toMatchObject({
      clusterName: 'fleetbench-run1-cass',
      seeds: ['10.0.0.5:7000'],
      heapMb: 8192,
      dataVolume: 'ebs',
      dataDir: '/var/lib/cassandra',
      listenAddress: 'imds',
      dc: 'imds',
      rack: 'imds',
      nativePort: 9042,
      run: 'systemd',
      java: 'install',
    });
    expect(() =>
      ec2NodeParams({ target: { ...target(), instanceType: 'x9.big' }, runId: 'r', index: 0, asset: '/a' }),
    ).toThrow(/targets.cass.instanceType: no memory size known for "x9.big"/);
  });

  it('is valid bash (bash -n) and writes what Cassandra needs', () => {
    const script = cassandraBootstrapScript(params());
    execFileSync('bash', ['-n'], { input: script });
    for (const line of [
      'endpoint_snitch: GossipingPropertyFileSnitch',
      'initial_token: ${FB_TOKEN}',
      'auto_bootstrap: false',
      '  - ${FB_DATA}/data',
      'commitlog_directory: ${FB_DATA}/commitlog',
      'printf \'dc=%s\\nrack=%s\\n\' "$FB_DC" "$FB_RACK" > "$FB_HOME/conf/cassandra-rackdc.properties"',
      '  [ "$FB_RACK" = imds ] && FB_RACK=$(imds placement/availability-zone)',
    ]) {
      expect(script.split('\n')).toContain(line);
    }
    expect(script).toContain("'-Xms8192m' '-Xmx8192m'");
    expect(script).not.toMatch(/nodetool|jmxremote|cassandra\.jmx|https?:\/\/(?!169\.254\.169\.254)/);
  });

  it('refuses values a shell or YAML could misread', () => {
    expect(() => cassandraBootstrapScript(params({ seeds: ['10.0.0.5;reboot'] }))).toThrow(/seeds/);
    expect(() => cassandraBootstrapScript(params({ asset: 'https://example.com/c.tgz' }))).toThrow(/asset/);
    expect(() => cassandraBootstrapScript(params({ dataDir: '/var/lib/$(x)' }))).toThrow(/dataDir/);
    expect(() => cassandraBootstrapScript(params({ heapMb: 100 }))).toThrow(/heapMb/);
  });

  it('withParameters changes the header only, and refuses an unknown variable', () => {
    const ec2 = cassandraBootstrapScript(params());
    const local = withParameters(
      ec2,
      { FB_LISTEN: '127.0.0.11', FB_RUN: 'foreground' },
      { heapMb: 512, extraJvmOptions: ['-Dx=1'] },
    );
    const body = (s: string) => s.slice(s.indexOf('\nlog() {'));
    expect(body(local)).toBe(body(ec2));
    expect(scriptVariable(local, 'FB_LISTEN')).toBe('127.0.0.11');
    expect(scriptVariable(local, 'FB_HEAP_MB')).toBe('512');
    expect(scriptVariable(local, 'FB_SEEDS')).toBe('10.0.0.5:7000');
    expect(local).toContain("'-Xmx512m'");
    expect(local).toContain("'-Dx=1'");
    expect(() => withParameters(ec2, { FB_NOPE: 'x' } as never)).toThrow(/no FB_NOPE/);
  });
});

describe('CQL v4 frames (native_protocol_v4.spec)', () => {
  it('STARTUP: header version 4, opcode 1, a string map {CQL_VERSION: 3.0.0}', () => {
    const f = startupFrame();
    expect([...f.subarray(0, 9)]).toEqual([0x04, 0, 0, 0, 0x01, 0, 0, 0, 22]);
    expect(f.subarray(9).toString('latin1')).toBe('\x00\x01\x00\x0bCQL_VERSION\x00\x053.0.0');
  });

  it('QUERY: long string, consistency, no flags', () => {
    const f = queryFrame('SELECT 1', 'QUORUM', 7);
    expect([...f.subarray(0, 9)]).toEqual([0x04, 0, 0, 7, 0x07, 0, 0, 0, 4 + 8 + 3]);
    expect([...f.subarray(9, 13)]).toEqual([0, 0, 0, 8]);
    expect([...f.subarray(21)]).toEqual([0, 4, 0]);
  });

  it('reads an ERROR and refuses a request frame', () => {
    const msg = Buffer.from('Keyspace x does not exist');
    const body = Buffer.concat([Buffer.from([0, 0, 0x22, 0x00, 0, msg.length]), msg]);
    const head = Buffer.from([0x84, 0, 0, 1, 0x00, 0, 0, 0, body.length]);
    expect(parseFrame(Buffer.concat([head, body]))).toEqual({
      kind: 'error',
      code: 0x2200,
      message: 'Keyspace x does not exist',
    });
    expect(() => parseFrame(startupFrame())).toThrow(/not a CQL v4 response/);
  });
});

describe('one Cassandra version', () => {
  it("the asset's POM, the spec's versions and the node code agree", () => {
    const pom = readFileSync(path.join(ROOT, 'loader/pom.xml'), 'utf8');
    expect(/<cassandra\.version>([^<]+)<\/cassandra\.version>/.exec(pom)?.[1]).toBe(CASSANDRA_VERSION);
    expect(CASSANDRA_VERSIONS).toEqual([CASSANDRA_VERSION]);
    expect(target().version).toBe(CASSANDRA_VERSION);
  });
});

describe("the loaders' properties", () => {
  it("the CQL binding's cql.* with the spec's consistency and replication factor", () => {
    const t = target({ nodes: 3, replicationFactor: 3, cql: { consistency: 'LOCAL_QUORUM' } });
    expect(
      cassandraJobProperties(t, [
        { host: '10.0.0.1', port: 9042 },
        { host: '10.0.1.2', port: 9042 },
      ]),
    ).toEqual({
      'cql.hosts': '10.0.0.1,10.0.1.2',
      'cql.port': '9042',
      'cql.keyspace': 'ycsb',
      'cql.readConsistency': 'LOCAL_QUORUM',
      'cql.writeConsistency': 'LOCAL_QUORUM',
      'cql.replicationFactor': '3',
    });
  });
});

describe('spec', () => {
  const bad = (over: Record<string, unknown>) => {
    try {
      target(over);
    } catch (err) {
      return ((err as { issues: { path: string; message: string }[] }).issues ?? []).map(
        (i) => `${i.path}: ${i.message}`,
      );
    }
    return [];
  };
  it('names the field of each bad value', () => {
    expect(bad({ nodes: 2, replicationFactor: 3 })).toEqual([
      'targets[0].replicationFactor: expected at most the node count (2), found 3',
    ]);
    expect(bad({ instanceType: 'x2idn.16xlarge' })[0]).toMatch(
      /^targets\[0\]\.instanceType: expected an instance type whose memory fleetbench knows .*found "x2idn.16xlarge"$/,
    );
    expect(bad({ version: '4.1.5' })[0]).toMatch(/^targets\[0\]\.version: .*"5\.0\.6"/);
    expect(bad({ volume: { sizeGb: 5 } })[0]).toMatch(/^targets\[0\]\.volume\.sizeGb: /);
    expect(bad({ cql: { consistency: 'TWO' } })[0]).toMatch(/^targets\[0\]\.cql\.consistency: /);
  });
});

describe('cost', () => {
  it('instance-hours plus the data and root gp3 volumes (price book 2024-11)', () => {
    const t = target({ nodes: 3, instanceType: 'i4i.2xlarge', volume: { sizeGb: 500 } });
    const report = monthlyCost(
      { target: t, throughput: { readsPerSec: 1000, writesPerSec: 1000 } },
      loadPriceBook(),
    );
    // 3 × 0.686 $/h × 730 h = 1,502.34; 3 × (500 + 30) GB × 0.08 $/GB-month = 127.20
    expect(headlineTotals(report).total).toBeCloseTo(1502.34 + 127.2, 2);
  });
});
