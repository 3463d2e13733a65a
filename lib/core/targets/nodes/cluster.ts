/**
 * Database nodes on EC2 as pure domain code, shared by the `scylla-ec2` and `cassandra-ec2` targets: tags,
 * node ordering, endpoints, the loaders' CQL properties, the keyspace/table (CQL) or table (Alternator)
 * the run creates once every node answers, and the probe run from a loader. ScyllaDB-only: the AMI's JSON
 * user data and the official AMI lookup; Cassandra's bootstrap script is in ./cassandra-node.ts.
 *
 * No AWS SDK here: the EC2 adapter (lib/aws/ec2-cluster.ts) and the local stand-in
 * (lib/local/cluster.ts) implement the DbNodeAdmin / ClusterProbe ports over this.
 */
import {
  BAD_CREDENTIALS,
  DEFAULT_SUPERUSER,
  OPCODE,
  RELEASE_VERSION_QUERY,
  authResponseFrame,
  parseFrame,
  queryFrame,
  startupFrame,
} from './cql-wire';
import { cqlLoginSecretName } from '../cassandra-ec2/cql-secret-name';
import type { CassandraEc2Target, ExternalTarget, ScyllaEc2Target } from '../../spec/schema';

/** A target whose database runs on EC2 nodes fleetbench launches. */
export type DbNodeTarget = ScyllaEc2Target | CassandraEc2Target;
export type DbNodeKind = DbNodeTarget['kind'];

/** Tag values of `fleetbench:role` on database nodes, by target kind (loaders carry `loader`, tables `target`). */
export const NODE_ROLES = { 'scylla-ec2': 'scylla-node', 'cassandra-ec2': 'cassandra-node' } as const;
/**
 * What a node kind's nodes run, which sets their image, volumes and start-up in the adapters (lib/aws/ec2-cluster.ts,
 * lib/local/cluster.ts): ScyllaDB (its official AMI, configured by JSON user data) or Apache Cassandra (Amazon Linux
 * 2023 with a data volume, installed by the bootstrap script).
 */
export type NodeSoftware = 'scylladb' | 'apache-cassandra';
/** The software of each node kind's nodes (NodeLaunchRequest.software). */
export const NODE_SOFTWARE: { readonly [K in DbNodeKind]: NodeSoftware } = {
  'scylla-ec2': 'scylladb',
  'cassandra-ec2': 'apache-cassandra',
};
/** Every database node role: what teardown, the janitor and the IAM conditions cover. */
export const DB_NODE_ROLES: string[] = Object.values(NODE_ROLES);

/** Whether a target runs on nodes fleetbench launches. */
export function isDbNodeTarget(t: { kind: string }): t is DbNodeTarget {
  return Object.hasOwn(NODE_ROLES, t.kind);
}

/** The API the loaders use on a node target. */
export function nodeApi(t: DbNodeTarget): 'alternator' | 'cql' {
  return t.kind === 'scylla-ec2' ? t.api : 'cql';
}
/** Tag naming the spec target a node belongs to. */
export const TAG_TARGET = 'fleetbench:target';
/** Tag with the node's index in its cluster (node 0 is the seed). */
export const TAG_NODE_INDEX = 'fleetbench:node-index';

/**
 * Owners of the official ScyllaDB AMIs (ScyllaDB's AWS accounts, as used by ScyllaDB's own
 * Terraform examples): DescribeImages is asked for images of these owners only.
 */
export const SCYLLA_AMI_OWNERS = ['797456418907', '158855661827'] as const;

/** The YCSB keyspace of the seeds' appendix ("Create YCSB keyspace and the table usertable"). */
export const CQL_KEYSPACE = 'ycsb';
/** The binding's key column (loader/ycsb-binding CqlConfig.KEY_COLUMN). */
export const CQL_KEY_COLUMN = 'y_id';
/** The Alternator table's hash key (the DynamoDB-API binding's default `dynamodb.keyAttribute`). */
export const ALTERNATOR_KEY_ATTRIBUTE = 'p';

/**
 * Client ports the deployed nodes' security group opens to the loaders (lib/constructs/db-nodes.ts):
 * Alternator, CQL, and ScyllaDB's shard-aware CQL port. Plan refuses scylla-ec2 targets on other ports.
 */
export const NODE_CLIENT_PORTS = { alternator: 8000, cql: 9042, cqlShardAware: 19042 } as const;

/** The settings of a target with its optional blocks defaulted. */
export function scyllaSettings(t: ScyllaEc2Target): {
  alternatorPort: number;
  writeIsolation: string;
  cqlPort: number;
  consistency: string;
} {
  return {
    alternatorPort: t.alternator?.port ?? 8000,
    writeIsolation: t.alternator?.writeIsolation ?? 'only_rmw_uses_lwt',
    cqlPort: t.cql?.port ?? 9042,
    consistency: t.cql?.consistency ?? 'QUORUM',
  };
}

/** The port the loaders use on every node. */
export function clientPort(t: DbNodeTarget): number {
  if (t.kind === 'cassandra-ec2') return t.cql.port;
  const s = scyllaSettings(t);
  return t.api === 'alternator' ? s.alternatorPort : s.cqlPort;
}

/** The cluster name: `fleetbench-<runId>-<target>`, cut to 64 characters. */
export function clusterName(runId: string, targetId: string): string {
  return `fleetbench-${runId}-${targetId}`.slice(0, 64);
}

/**
 * The ScyllaDB AMI's user data (scylla-machine-image "user-data format v2": a JSON object whose
 * `scylla_yaml` keys go into scylla.yaml). Alternator is off unless `alternator_port` is set, and
 * ScyllaDB refuses to start with the port but no `alternator_write_isolation`, so both are always
 * set together. `seeds` are the private IPs of the seed node(s); node 0 is launched first and seeds
 * itself (empty list: the AMI uses the node's own address).
 */
export function nodeUserData(args: { target: ScyllaEc2Target; runId: string; seeds: string[] }): {
  scylla_yaml: Record<string, unknown>;
  start_scylla_on_first_boot: boolean;
} {
  const s = scyllaSettings(args.target);
  const yaml: Record<string, unknown> = {
    cluster_name: clusterName(args.runId, args.target.id),
    native_transport_port: s.cqlPort,
    alternator_port: s.alternatorPort,
    alternator_write_isolation: s.writeIsolation,
    // the AMI's default snitch: datacenter = region, rack = availability zone
    endpoint_snitch: 'org.apache.cassandra.locator.Ec2Snitch',
  };
  if (args.seeds.length) {
    yaml.seed_provider = [
      {
        class_name: 'org.apache.cassandra.locator.SimpleSeedProvider',
        parameters: [{ seeds: args.seeds.join(',') }],
      },
    ];
  }
  return { scylla_yaml: yaml, start_scylla_on_first_boot: true };
}

/** The user data as EC2 wants it (base64 of the JSON). */
export function nodeUserDataBase64(args: Parameters<typeof nodeUserData>[0]): string {
  return Buffer.from(JSON.stringify(nodeUserData(args))).toString('base64');
}

/**
 * How to find the AMI: a given id, or the newest image of the ScyllaDB owners whose name matches
 * the version ("ScyllaDB 2025.1.3" and "ScyllaDB Enterprise 2024.1.12" both match their version
 * prefix), for the node's architecture.
 */
export type AmiQuery =
  | { imageId: string }
  | { owners: string[]; namePatterns: string[]; architecture: 'x86_64' | 'arm64'; version: string };

export function amiQuery(t: ScyllaEc2Target, architecture: 'x86_64' | 'arm64'): AmiQuery {
  if ('id' in t.ami) return { imageId: t.ami.id };
  const v = t.ami.scyllaVersion;
  return {
    owners: [...SCYLLA_AMI_OWNERS],
    namePatterns: [`ScyllaDB ${v}*`, `ScyllaDB Enterprise ${v}*`],
    architecture,
    version: v,
  };
}

/** The newest of the candidate images that really carries the version (`2025.1` must not pick `2025.10`). */
export function pickImage(
  images: { imageId: string; name: string; creationDate: string }[],
  version: string,
): { imageId: string; name: string } | undefined {
  const re = new RegExp(`^ScyllaDB (Enterprise )?${version.replace(/\./g, '\\.')}(\\.|$|[^0-9])`);
  return images
    .filter((i) => re.test(i.name))
    .sort((a, b) => b.creationDate.localeCompare(a.creationDate) || b.name.localeCompare(a.name))[0];
}

/** A node as the ports see it. */
export interface ClusterNode {
  id: string;
  /** pending | running | shutting-down | terminated | stopping | stopped */
  state: string;
  /** Private IPv4 address (loopback for the local stand-in), once known. */
  privateIp?: string;
  /** Client port of this node when it is not the target's (the local stand-in's proxies). */
  port?: number;
  tags: Record<string, string>;
}

/** Nodes of one target, in node-index order. */
export function targetNodes(nodes: ClusterNode[], targetId: string): ClusterNode[] {
  return nodes
    .filter((n) => n.tags[TAG_TARGET] === targetId)
    .filter((n) => n.state === 'pending' || n.state === 'running')
    .sort((a, b) => Number(a.tags[TAG_NODE_INDEX] ?? 0) - Number(b.tags[TAG_NODE_INDEX] ?? 0));
}

/** host:port of each node's client port. */
export function nodeEndpoints(t: DbNodeTarget, nodes: ClusterNode[]): { host: string; port: number }[] {
  return nodes.filter((n) => n.privateIp).map((n) => ({ host: n.privateIp!, port: n.port ?? clientPort(t) }));
}

/**
 * The YCSB properties that point a loader process at the cluster. Alternator: every node's endpoint
 * in `dynamodb.endpoint` (the binding spreads requests over them round robin: client-side load
 * balancing, as ScyllaDB recommends; Alternator has no load balancer of its own). CQL: the binding's
 * `cql.*` properties (token-aware routing needs only some contact points, all are given).
 */
export function scyllaJobProperties(
  t: ScyllaEc2Target,
  endpoints: { host: string; port: number }[],
): Record<string, string> {
  if (t.api === 'alternator') {
    return { 'dynamodb.endpoint': endpoints.map((e) => `http://${e.host}:${e.port}`).join(',') };
  }
  const s = scyllaSettings(t);
  return cqlJobProperties(endpoints, {
    port: s.cqlPort,
    consistency: s.consistency,
    replicationFactor: t.replicationFactor,
  });
}

/** The CQL binding's properties for a cluster's nodes (both node kinds; contact points are all nodes). */
export function cqlJobProperties(
  endpoints: { host: string; port: number }[],
  s: { port: number; consistency: string; replicationFactor: number },
): Record<string, string> {
  const ports = new Set(endpoints.map((e) => e.port));
  return {
    'cql.hosts': endpoints
      .map((e) => (ports.size > 1 || e.port !== s.port ? `${e.host}:${e.port}` : e.host))
      .join(','),
    'cql.port': String(s.port),
    'cql.keyspace': CQL_KEYSPACE,
    'cql.readConsistency': s.consistency,
    'cql.writeConsistency': s.consistency,
    'cql.replicationFactor': String(s.replicationFactor),
  };
}

/** The loaders' properties for a cassandra-ec2 target: the CQL binding on every node, the spec's consistency. */
export function cassandraJobProperties(
  t: CassandraEc2Target,
  endpoints: { host: string; port: number }[],
): Record<string, string> {
  return cqlJobProperties(endpoints, {
    port: t.cql.port,
    consistency: t.cql.consistency,
    replicationFactor: t.replicationFactor,
  });
}

/**
 * Secrets the loaders may read (their role's grant is `secret:fleetbench/*`): an external target's
 * credentialsSecretArn must name a secret under this prefix.
 */
export const CREDENTIALS_SECRET_PREFIX = 'fleetbench/';

/**
 * Whether a Secrets Manager ARN names a secret the loaders may read: under the prefix, in the stack's region (the
 * loaders' client asks their own region) and account (their role's grant is on the stack's own secrets).
 */
export function readableByLoaders(secretArn: string, stack: { region: string; account?: string }): boolean {
  const m = /^arn:aws[a-z-]*:secretsmanager:([a-z0-9-]+):(\d{12}):secret:fleetbench\//.exec(secretArn);
  return m !== null && m[1] === stack.region && (stack.account === undefined || m[2] === stack.account);
}

/** Properties of an external target's endpoints (credentials are never among them). */
export function externalJobProperties(t: ExternalTarget): Record<string, string> {
  if (t.protocol === 'dynamodb') return { 'dynamodb.endpoint': t.endpoints.join(',') };
  return { 'cql.hosts': t.endpoints.join(','), 'cql.keyspace': CQL_KEYSPACE };
}

/**
 * The seed appendix's "Create YCSB keyspace and the table usertable", with the spec's replication
 * factor; the same statements as the binding's CqlSchema (loader/ycsb-binding), which runs them.
 */
export function cqlSchemaStatements(args: {
  keyspace?: string;
  table: string;
  replicationFactor: number;
  fieldCount: number;
}): string[] {
  const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
  const ks = q(args.keyspace ?? CQL_KEYSPACE);
  const fields = Array.from({ length: args.fieldCount }, (_, i) => `, field${i} varchar`).join('');
  return [
    `CREATE KEYSPACE IF NOT EXISTS ${ks} WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': '${args.replicationFactor}'}`,
    `CREATE TABLE IF NOT EXISTS ${ks}.${q(args.table)} (${CQL_KEY_COLUMN} varchar PRIMARY KEY${fields})`,
  ];
}

/**
 * The CQL table name of a target: CQL identifiers are at most 48 characters of letters, digits and
 * underscores, so the run's DynamoDB-style name does not fit; each run has its own cluster anyway.
 */
export const CQL_TABLE = 'usertable';

/** What WaitReady creates once the cluster answers. */
export type SchemaRequest =
  | {
      api: 'alternator';
      /** One node's endpoint (the table is global to the cluster). */
      endpoint: string;
      table: string;
      keyAttribute: string;
    }
  | {
      api: 'cql';
      hosts: string[];
      port: number;
      statements: string[];
      keyspace: string;
      table: string;
      replicationFactor: number;
      fieldCount: number;
      /**
       * cassandra-ec2: the name of the run's login secret (lib/core/targets/cassandra-ec2/cql-auth.ts); the schema step creates
       * the role from it on a node that asks for credentials, then logs in with it.
       */
      login?: string;
    };

export function schemaRequest(args: {
  target: DbNodeTarget;
  endpoints: { host: string; port: number }[];
  table: string;
  fieldCount: number;
  /** The run's id: cassandra-ec2 schema requests name the run's login secret. */
  runId?: string;
}): SchemaRequest {
  const { target, endpoints } = args;
  if (target.kind === 'scylla-ec2' && target.api === 'alternator') {
    const e = endpoints[0]!;
    return {
      api: 'alternator',
      endpoint: `http://${e.host}:${e.port}`,
      table: args.table,
      keyAttribute: ALTERNATOR_KEY_ATTRIBUTE,
    };
  }
  return {
    api: 'cql',
    hosts: endpoints.map((e) => `${e.host}:${e.port}`),
    port: clientPort(target),
    statements: cqlSchemaStatements({
      table: args.table,
      replicationFactor: target.replicationFactor,
      fieldCount: args.fieldCount,
    }),
    keyspace: CQL_KEYSPACE,
    table: args.table,
    replicationFactor: target.replicationFactor,
    fieldCount: args.fieldCount,
    ...(target.kind === 'cassandra-ec2' && args.runId
      ? { login: cqlLoginSecretName(args.runId, target.id) }
      : {}),
  };
}

// PROBING FROM A LOADER (AWS)
// ===========================
// The nodes' security group admits the loaders only, so on AWS the pipeline checks the nodes and
// creates the schema by running a shell script on one of the run's loaders (SSM Run Command,
// AWS-RunShellScript). The scripts are built here so they can be tested without AWS.

const HEALTH_MARK = 'fleetbench-health';
/** host:port or [v6]:port, digits/letters/.:-[] only: nothing a shell could interpret. */
const SAFE_ENDPOINT = /^[A-Za-z0-9.\-:[\]]+$/;

function safeEndpoint(e: { host: string; port: number }): string {
  const s = `${e.host}:${e.port}`;
  if (!SAFE_ENDPOINT.test(s) || !Number.isInteger(e.port))
    throw new Error(`unsafe endpoint ${JSON.stringify(s)}`);
  return s;
}

const CQL_MARK = 'fleetbench-cql';
const op = (code: number) => code.toString(16).padStart(2, '0');
const hexEscaped = (b: Buffer) => [...b].map((x) => `\\x${x.toString(16).padStart(2, '0')}`).join('');

/**
 * The probe. Alternator: one line `fleetbench-health <host:port> <code>` per endpoint; code 200 means it
 * answers. CQL (nodetool-free, no driver): bash opens the native port, sends the CQL v4 STARTUP (and, to a
 * node that asks for credentials, the default superuser's AUTH_RESPONSE) and
 * `SELECT release_version FROM system.local` frames (built by ./cql-wire.ts) and prints the answer's bytes in
 * hex, one line `fleetbench-cql <host:port> <hex>` per endpoint (`none`: no connection; `silent`: a
 * connection but no CQL answer within 3 s).
 */
export function healthScript(
  api: 'alternator' | 'cql',
  endpoints: { host: string; port: number }[],
): string[] {
  return healthCommands(api, endpoints.map(safeEndpoint).join(' '));
}

/**
 * The probe's lines for a space-separated `host:port` list, as given (checked ones, or the WaitReady
 * document's `{{ endpoints }}` parameter, which its allowedPattern checks).
 */
export function healthCommands(api: 'alternator' | 'cql', list: string): string[] {
  if (api === 'alternator') {
    return [
      `for e in ${list}; do c=$(curl -s -o /dev/null -m 3 -w '%{http_code}' "http://$e/" || true); echo "${HEALTH_MARK} $e \${c:-000}"; done`,
    ];
  }
  const hexOf = 'od -An -tx1 | tr -d " \\n"';
  return [
    'cqlframe() {',
    `  local h; h=$(timeout 3 head -c 9 <&3 | ${hexOf})`,
    '  [ "${#h}" -eq 18 ] || return 1',
    '  local n=$((16#${h:10:8})) b=""',
    `  if [ "$n" -gt 0 ]; then b=$(timeout 3 head -c "$n" <&3 | ${hexOf}); fi`,
    '  echo "$h$b"',
    '}',
    'cqlask() {',
    '  exec 3<>"/dev/tcp/$1/$2" || return 1',
    `  printf '${hexEscaped(startupFrame())}' >&3`,
    '  local r; r=$(cqlframe) || { echo silent; return 0; }',
    // PasswordAuthenticator: log in with the default superuser; once a run's role replaced it, the
    // node's refusal (Bad credentials) is the answer, which still shows it serves CQL
    `  if [ "\${r:8:2}" = "${op(OPCODE.AUTHENTICATE)}" ]; then`,
    `    printf '${hexEscaped(authResponseFrame(DEFAULT_SUPERUSER.username, DEFAULT_SUPERUSER.password))}' >&3`,
    '    r=$(cqlframe) || { echo silent; return 0; }',
    `    if [ "\${r:8:2}" != "${op(OPCODE.AUTH_SUCCESS)}" ]; then echo "$r"; return 0; fi`,
    `  elif [ "\${r:8:2}" != "${op(OPCODE.READY)}" ]; then echo "$r"; return 0; fi`,
    `  printf '${hexEscaped(queryFrame(RELEASE_VERSION_QUERY, 'ONE'))}' >&3`,
    '  cqlframe || echo silent',
    '}',
    `for e in ${list}; do r=$(timeout 10 bash -c "$(declare -f cqlframe cqlask); cqlask \${e%:*} \${e##*:}" 2>/dev/null || true); echo "${CQL_MARK} $e \${r:-none}"; done`,
  ];
}

/**
 * What a node answered to the CQL probe's hex: its release_version, or why it is not ready. A node that
 * refuses the default login (its run's role replaced it) is up, its version unknown.
 */
export function readCqlProbe(hex: string | undefined): { ok: boolean; detail?: string; version?: string } {
  if (hex === undefined) return { ok: false, detail: 'no answer from the probe' };
  if (hex === 'none') return { ok: false, detail: 'no connection' };
  if (hex === 'silent') return { ok: false, detail: 'connected, no CQL answer' };
  try {
    const r = parseFrame(Buffer.from(hex, 'hex'));
    if (r.kind === 'rows' && r.rows[0]?.[0]) return { ok: true, version: r.rows[0][0] };
    if (r.kind === 'error' && r.code === BAD_CREDENTIALS)
      return { ok: true, detail: `serves CQL, refuses the default login (${r.message})` };
    if (r.kind === 'error') return { ok: false, detail: `CQL error 0x${r.code.toString(16)}: ${r.message}` };
    return { ok: false, detail: `unexpected CQL answer ${r.kind}` };
  } catch (err) {
    return { ok: false, detail: `unreadable CQL answer: ${(err as Error).message}` };
  }
}

/** Reads the health script's output; an endpoint without a line did not answer. */
export function parseHealth(
  api: 'alternator' | 'cql',
  output: string,
  endpoints: { host: string; port: number }[],
): { endpoint: string; ok: boolean; detail?: string; version?: string }[] {
  if (api === 'cql') {
    const answers = new Map<string, string>();
    for (const line of output.split('\n')) {
      const m = new RegExp(`^${CQL_MARK} (\\S+) ([0-9a-f]+|none|silent)$`).exec(line.trim());
      if (m) answers.set(m[1]!, m[2]!);
    }
    return endpoints.map((e) => {
      const endpoint = `${e.host}:${e.port}`;
      const r = readCqlProbe(answers.get(endpoint));
      return {
        endpoint,
        ok: r.ok,
        ...(r.detail ? { detail: r.detail } : {}),
        ...(r.version ? { version: r.version } : {}),
      };
    });
  }
  const codes = new Map<string, string>();
  for (const line of output.split('\n')) {
    const m = new RegExp(`^${HEALTH_MARK} (\\S+) (\\d{3})`).exec(line.trim());
    if (m) codes.set(m[1]!, m[2]!);
  }
  return endpoints.map((e) => {
    const key = `${e.host}:${e.port}`;
    const endpoint = api === 'alternator' ? `http://${key}` : key;
    const code = codes.get(key);
    if (code === '200') return { endpoint, ok: true };
    return {
      endpoint,
      ok: false,
      detail:
        code === undefined ? 'no answer from the probe' : code === '000' ? 'no connection' : `HTTP ${code}`,
    };
  });
}

/**
 * Creates the schema from a loader. Alternator: `aws dynamodb create-table` against one node (the
 * AWS CLI is on Amazon Linux 2023; Alternator ignores the billing mode; an existing table is fine).
 * CQL: the binding's CqlSchema (the same statements as cqlSchemaStatements) after `prepare`, the
 * loader document's own commands that install Java and fetch the loader bundle to `bundleDir`.
 */
export function schemaScript(
  req: SchemaRequest,
  opts: { prepare: string[]; bundleDir: string; region: string },
): string[] {
  const ident = /^[A-Za-z0-9_.-]+$/;
  if (!ident.test(req.table)) throw new Error(`unsafe table name ${JSON.stringify(req.table)}`);
  if (req.api === 'alternator') {
    if (!/^http:\/\/[A-Za-z0-9.\-:[\]]+$/.test(req.endpoint) || !ident.test(req.keyAttribute))
      throw new Error('unsafe Alternator endpoint or key attribute');
    return schemaCommands('alternator', req, opts);
  }
  const hosts = req.hosts.map((h) => {
    if (!SAFE_ENDPOINT.test(h)) throw new Error(`unsafe CQL host ${JSON.stringify(h)}`);
    return h;
  });
  if (!ident.test(req.keyspace)) throw new Error(`unsafe keyspace name ${JSON.stringify(req.keyspace)}`);
  if (req.login !== undefined && !new RegExp(PROBE_PARAMETERS.login).test(req.login))
    throw new Error(`unsafe login secret ${JSON.stringify(req.login)}`);
  return schemaCommands('cql', { ...req, hosts: hosts.join(',') }, opts);
}

/** The values the schema commands take, as text (checked ones, or the WaitReady document's parameters). */
export interface SchemaValues {
  endpoint: string;
  table: string;
  keyAttribute: string;
  hosts: string;
  port: string | number;
  keyspace: string;
  replicationFactor: string | number;
  fieldCount: string | number;
  /** cassandra-ec2: the run's login secret NAME (never its value); `-` for none. */
  login: string;
}

/** The schema lines for values as given (see schemaScript for the checked entry point). */
export function schemaCommands(
  api: 'alternator' | 'cql',
  v: Partial<SchemaValues>,
  opts: { prepare: string[]; bundleDir: string; region: string },
): string[] {
  if (api === 'alternator') {
    return [
      'set -uo pipefail',
      `out=$(aws dynamodb create-table --region ${opts.region} --endpoint-url ${v.endpoint} --table-name ${v.table} ` +
        `--attribute-definitions AttributeName=${v.keyAttribute},AttributeType=S --key-schema AttributeName=${v.keyAttribute},KeyType=HASH ` +
        `--billing-mode PAY_PER_REQUEST 2>&1) || echo "$out" | grep -q ResourceInUseException || { echo "$out"; exit 1; }`,
      `aws dynamodb wait table-exists --region ${opts.region} --endpoint-url ${v.endpoint} --table-name ${v.table}`,
      'echo fleetbench-schema ok',
    ];
  }
  return [
    ...opts.prepare,
    ...(v.login !== undefined ? loginLines(v.login, opts.region) : []),
    `java -cp '${opts.bundleDir}/lib/*' dev.fleetbench.ycsb.cql.CqlSchema -p cql.hosts=${v.hosts} ` +
      `-p cql.port=${v.port} -p cql.keyspace=${v.keyspace} -p table=${v.table} ` +
      `-p cql.replicationFactor=${v.replicationFactor} -p fieldcount=${v.fieldCount}` +
      (v.login !== undefined ? ' $fb_setup' : ''),
    'echo fleetbench-schema ok',
  ];
}

/** What the WaitReady document does on a loader: probe the nodes' health or create the schema, per API. */
export const PROBE_ACTIONS = ['health-alternator', 'health-cql', 'schema-alternator', 'schema-cql'] as const;
export type ProbeAction = (typeof PROBE_ACTIONS)[number];

/**
 * The WaitReady document's parameters (name → allowedPattern): each is substituted into the document's
 * fixed script by Run Command, so each admits only characters no shell gives a meaning to. `-` is
 * the default of a parameter an action does not use.
 */
export const PROBE_PARAMETERS: Record<keyof SchemaValues | 'endpoints', string> = {
  endpoints: '^(-|[A-Za-z0-9.:\\[\\] -]{1,4000})$',
  endpoint: '^(-|http://[A-Za-z0-9.:\\[\\]-]{1,300})$',
  table: '^(-|[A-Za-z0-9_.-]{1,255})$',
  keyAttribute: '^(-|[A-Za-z0-9_.-]{1,255})$',
  hosts: '^(-|[A-Za-z0-9.:,\\[\\]-]{1,4000})$',
  port: '^(-|[0-9]{1,5})$',
  keyspace: '^(-|[A-Za-z0-9_]{1,48})$',
  replicationFactor: '^(-|[0-9]{1,2})$',
  fieldCount: '^(-|[0-9]{1,4})$',
  login: '^(-|fleetbench/[A-Za-z0-9._/-]{1,500})$',
};

/**
 * The WaitReady document's script: one branch per action, each the lines above with the document's
 * `{{ parameter }}` in place of the values (Run Command substitutes them after checking each against
 * PROBE_PARAMETERS).
 */
export function probeDocumentScript(opts: {
  prepare: string[];
  bundleDir: string;
  region: string;
}): string[] {
  const param = Object.fromEntries(
    Object.keys(PROBE_PARAMETERS).map((k) => [k, `{{ ${k} }}`]),
  ) as unknown as SchemaValues & { endpoints: string };
  const branch = (action: ProbeAction, lines: string[]) => [
    `if [ "{{ action }}" = "${action}" ]; then`,
    ...lines,
    'exit 0',
    'fi',
  ];
  return [
    ...branch('health-alternator', healthCommands('alternator', param.endpoints)),
    ...branch('health-cql', healthCommands('cql', param.endpoints)),
    ...branch('schema-alternator', schemaCommands('alternator', param, opts)),
    ...branch('schema-cql', schemaCommands('cql', param, opts)),
    'echo "unknown action {{ action }}"',
    'exit 2',
  ];
}

/** The document's parameters for one action (the values it does not use are `-`). */
export function probeParameters(
  action: ProbeAction,
  values: Partial<SchemaValues> & { endpoints?: string },
  executionTimeoutSeconds: number,
): Record<string, string[]> {
  const out: Record<string, string[]> = {
    action: [action],
    executionTimeout: [String(executionTimeoutSeconds)],
  };
  for (const k of Object.keys(PROBE_PARAMETERS) as (keyof typeof PROBE_PARAMETERS)[])
    out[k] = [values[k] === undefined ? '-' : String(values[k])];
  return out;
}

/**
 * The run's login for CqlSchema, from its secret (the loader role reads `fleetbench/*`) into the binding's
 * environment variables, and the default superuser's login for the setup; nothing is printed. `login` is a
 * secret name, `-` (no login: a node with AllowAllAuthenticator) or the document's `{{ login }}`.
 */
function loginLines(login: string, region: string): string[] {
  const field = (f: string) =>
    `$(printf '%s' "$fb_secret" | python3 -c 'import json,sys; print(json.load(sys.stdin)["${f}"])')`;
  return [
    "fb_setup=''",
    `if [ "${login}" != "-" ]; then`,
    `  fb_secret=$(aws secretsmanager get-secret-value --region ${region} --secret-id ${login} --query SecretString --output text) || exit 1`,
    `  export FLEETBENCH_CQL_USERNAME="${field('username')}"`,
    `  export FLEETBENCH_CQL_PASSWORD="${field('password')}"`,
    '  unset fb_secret',
    `  fb_setup='-p cql.setupUsername=${DEFAULT_SUPERUSER.username} -p cql.setupPassword=${DEFAULT_SUPERUSER.password}'`,
    'fi',
  ];
}
