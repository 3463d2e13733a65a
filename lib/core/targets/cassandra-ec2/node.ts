/**
 * A cassandra-ec2 node as pure domain code: what it is launched with. One bootstrap script (bash) installs
 * Apache Cassandra from the asset the stack ships (org.apache.cassandra:cassandra-all and its dependencies
 * from Maven Central, packed by loader/cassandra-node: entries lib/*.jar), writes cassandra.yaml,
 * cassandra-rackdc.properties, logback.xml and the JVM options, and starts CassandraDaemon. On EC2 it is the
 * node's user data (Amazon Linux 2023: Java from the distribution, the data directories on the node's EBS
 * volume, a systemd service); the local mode runs THE SAME script with loopback addresses, free ports and a
 * temporary directory (lib/local/cluster.ts).
 *
 * Ring layout: a fresh, empty cluster, so every node takes one evenly spaced Murmur3 token and joins
 * without bootstrap streaming (there is nothing to stream): the ring is exactly balanced and the nodes
 * after the seed may start together.
 */
import { clusterName } from '../nodes/cluster';
import { vcpusOf } from '../../common/instance-types';
import type { CassandraEc2Target } from '../../spec/schema';
import { CASSANDRA_VERSION } from './version';

export { CASSANDRA_VERSION };

/** The asset's file name under loader/cassandra-node/target. */
export function cassandraAssetName(version: string = CASSANDRA_VERSION): string {
  return `fleetbench-cassandra-${version}.tar.gz`;
}

/** Root volume of a cassandra-ec2 node (Amazon Linux 2023's /dev/xvda), GB; the data go to the data volume. */
export const CASSANDRA_ROOT_VOLUME_GB = 30;

/** EBS GB per cassandra-ec2 node the cost model prices: the data volume and the root volume. */
export function cassandraEbsGbPerNode(t: { volume: { sizeGb: number } }): number {
  return t.volume.sizeGb + CASSANDRA_ROOT_VOLUME_GB;
}

/** Cassandra's own default inter-node port (cassandra.yaml storage_port). */
export const CASSANDRA_STORAGE_PORT = 7000;

/**
 * Memory per vCPU (GiB) of the instance families fleetbench knows, from the EC2 instance type pages
 * (https://aws.amazon.com/ec2/instance-types/): compute-optimised c* 2, general-purpose m* 4,
 * memory-optimised r* 8, storage-optimised i4i / i3en 8 and i3 7.625 (i3.2xlarge: 61 GiB).
 */
const GIB_PER_VCPU: Record<string, number> = {
  c5: 2,
  c5d: 2,
  c6i: 2,
  c6id: 2,
  c6g: 2,
  c7i: 2,
  c7g: 2,
  m5: 4,
  m5d: 4,
  m6i: 4,
  m6id: 4,
  m6g: 4,
  m7i: 4,
  m7g: 4,
  r5: 8,
  r5d: 8,
  r6i: 8,
  r6id: 8,
  r6g: 8,
  r7i: 8,
  r7g: 8,
  i3: 7.625,
  i3en: 8,
  i4i: 8,
  i4g: 8,
};

/** Types of those families whose memory is not their vCPUs × the family's GiB per vCPU: i3.metal has 72 vCPUs, 512 GiB. */
const MEMORY_GIB: Record<string, number> = { 'i3.metal': 512 };

/** The instance type's memory in MiB (vCPUs from lib/core/common/instance-types.ts), or null for a family or size this does not know. */
export function instanceMemoryMib(instanceType: string): number | null {
  const family = instanceType.split('.')[0] ?? '';
  const listed = MEMORY_GIB[instanceType];
  if (listed !== undefined) return listed * 1024;
  const perVcpu = GIB_PER_VCPU[family];
  const n = vcpusOf(instanceType);
  return perVcpu === undefined || n === null ? null : Math.round(perVcpu * n * 1024);
}

/** Instance families whose memory is known (for the validator's message). */
export const KNOWN_MEMORY_FAMILIES = Object.keys(GIB_PER_VCPU);

/**
 * Cassandra's default heap for a machine of `memoryMib`, by its own rule in conf/cassandra-env.sh
 * (calculate_heap_sizes, https://github.com/apache/cassandra/blob/cassandra-5.0.6/conf/cassandra-env.sh):
 * max(min(1/2 ram, 1024 MB), min(1/4 ram, 8192 MB)), with the script's integer arithmetic (the quarter is
 * half of the half, each rounded down).
 */
export function cassandraHeapMb(memoryMib: number): number {
  const half = Math.floor(memoryMib / 2);
  const quarter = Math.floor(half / 2);
  return Math.max(Math.min(half, 1024), Math.min(quarter, 8192));
}

/**
 * The node's Murmur3 token: node i of n at -2^63 + i × 2^64 / n, so each owns exactly 1/n of the ring
 * (Murmur3Partitioner's range is [-2^63, 2^63 - 1]).
 */
export function initialToken(index: number, nodes: number): string {
  if (!Number.isInteger(index) || !Number.isInteger(nodes) || index < 0 || index >= nodes) {
    throw new Error(`node index ${index} outside 0..${nodes - 1}`);
  }
  return (-(2n ** 63n) + (BigInt(index) * 2n ** 64n) / BigInt(nodes)).toString();
}

/** What one node's script is run with. */
export interface CassandraNodeParams {
  clusterName: string;
  /** host:storagePort of the seed (node 0); empty on node 0, which seeds itself. */
  seeds: string[];
  initialToken: string;
  heapMb: number;
  /** Where the Cassandra archive is: `s3://bucket/key` (EC2: the stack's asset) or an absolute file path. */
  asset: string;
  /** Install directory (lib/, conf/, logs/). */
  home: string;
  /** Data directory: data, commit log, hints, saved caches. */
  dataDir: string;
  /** `ebs`: format (xfs, when blank) and mount the node's EBS data volume on dataDir; `none`: a plain directory. */
  dataVolume: 'ebs' | 'none';
  /** The address Cassandra listens on, or `imds`: the instance's private IPv4. */
  listenAddress: string;
  /** Datacenter and rack (GossipingPropertyFileSnitch), or `imds`: the region and the availability zone. */
  dc: string;
  rack: string;
  nativePort: number;
  storagePort: number;
  /** `systemd`: a service under a `cassandra` user (EC2); `foreground`: exec the JVM (the local mode). */
  run: 'systemd' | 'foreground';
  /** `install`: Amazon Corretto 17 from the distribution (dnf) when no Java 17+ is there; else a java path. */
  java: string;
  /** JVM options after fleetbench's (the local mode's start-up shortcuts). */
  extraJvmOptions: string[];
  /**
   * `PasswordAuthenticator` when the run made a login for the cluster (lib/core/targets/cassandra-ec2/cql-auth.ts: the schema
   * step replaces the default superuser with it); `AllowAllAuthenticator` where the deployment has no
   * secrets port yet.
   */
  authenticator: 'PasswordAuthenticator' | 'AllowAllAuthenticator';
}

/** What every node of a target on EC2 is launched with (all but its token): computed once per cluster. */
export function ec2ClusterParams(args: {
  target: CassandraEc2Target;
  runId: string;
  /** Node 0's private IP (empty for node 0 itself). */
  seedIp?: string;
  asset: string;
  /** The run made a login for the cluster: the nodes ask for it (PasswordAuthenticator). */
  login?: boolean;
}): Omit<CassandraNodeParams, 'initialToken'> {
  const { target: t } = args;
  const memory = instanceMemoryMib(t.instanceType);
  if (memory === null) {
    throw new Error(
      `targets.${t.id}.instanceType: no memory size known for "${t.instanceType}" (families: ${KNOWN_MEMORY_FAMILIES.join(', ')})`,
    );
  }
  return {
    clusterName: clusterName(args.runId, t.id),
    seeds: args.seedIp ? [`${args.seedIp}:${CASSANDRA_STORAGE_PORT}`] : [],
    heapMb: cassandraHeapMb(memory),
    asset: args.asset,
    home: '/opt/cassandra',
    dataDir: '/var/lib/cassandra',
    dataVolume: 'ebs',
    listenAddress: 'imds',
    dc: 'imds',
    rack: 'imds',
    nativePort: t.cql.port,
    storagePort: CASSANDRA_STORAGE_PORT,
    run: 'systemd',
    java: 'install',
    extraJvmOptions: [],
    authenticator: args.login ? 'PasswordAuthenticator' : 'AllowAllAuthenticator',
  };
}

/** The settings of node `index` of a target on EC2: the cluster's, and its token. */
export function ec2NodeParams(
  args: Parameters<typeof ec2ClusterParams>[0] & { index: number },
): CassandraNodeParams {
  return { ...ec2ClusterParams(args), initialToken: initialToken(args.index, args.target.nodes) };
}

/**
 * JVM options: the heap, G1 as Cassandra 5.0's conf/jvm17-server.options sets it, the module exports/opens
 * that file lists for Java 17, and the system properties CassandraDaemon reads. No JMX port: nothing here
 * uses nodetool (readiness is asked over CQL).
 */
export function jvmOptions(p: Pick<CassandraNodeParams, 'heapMb' | 'extraJvmOptions'>): string[] {
  const opens = [
    'java.base/java.lang.module',
    'java.base/jdk.internal.loader',
    'java.base/jdk.internal.ref',
    'java.base/jdk.internal.reflect',
    'java.base/jdk.internal.math',
    'java.base/jdk.internal.module',
    'java.base/jdk.internal.util.jar',
    'jdk.management/com.sun.management.internal',
    'java.base/sun.nio.ch',
    'java.base/java.io',
    'java.base/java.lang.reflect',
    'jdk.compiler/com.sun.tools.javac',
    'java.base/java.lang',
    'java.base/java.util',
  ];
  const exports = [
    'java.base/jdk.internal.misc',
    'java.management.rmi/com.sun.jmx.remote.internal.rmi',
    'java.rmi/sun.rmi.registry',
    'java.rmi/sun.rmi.server',
    'java.sql/java.sql',
    'java.base/java.lang.ref',
    'jdk.unsupported/sun.misc',
    'jdk.compiler/com.sun.tools.javac.file',
    'jdk.attach/sun.tools.attach',
  ];
  return [
    `-Xms${p.heapMb}m`,
    `-Xmx${p.heapMb}m`,
    '-Xss256k',
    '-XX:+UseG1GC',
    '-XX:+ParallelRefProcEnabled',
    '-XX:MaxTenuringThreshold=1',
    '-XX:MaxGCPauseMillis=300',
    '-XX:InitiatingHeapOccupancyPercent=70',
    '-XX:+ExitOnOutOfMemoryError',
    '-XX:+PerfDisableSharedMem',
    '-Djava.net.preferIPv4Stack=true',
    '-Djdk.attach.allowAttachSelf=true',
    '-Dio.netty.tryReflectionSetAccessible=true',
    ...exports.flatMap((e) => ['--add-exports', `${e}=ALL-UNNAMED`]),
    ...opens.flatMap((o) => ['--add-opens', `${o}=ALL-UNNAMED`]),
    '-Dcassandra-foreground=yes',
    ...p.extraJvmOptions,
  ];
}

/** Single-quoted for bash. */
function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const SAFE_ADDR = /^(imds|[0-9a-zA-Z.:-]+)$/;
const SAFE_PATH = /^\/[A-Za-z0-9._/-]+$/;

function checkParams(p: CassandraNodeParams): void {
  const bad = (field: string, v: unknown) => {
    throw new Error(`cassandra node ${field}: unsafe or invalid value ${JSON.stringify(v)}`);
  };
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(p.clusterName)) bad('clusterName', p.clusterName);
  for (const s of p.seeds) if (!/^[0-9A-Za-z.:-]+$/.test(s)) bad('seeds', s);
  if (!/^-?\d+$/.test(p.initialToken)) bad('initialToken', p.initialToken);
  if (!Number.isInteger(p.heapMb) || p.heapMb < 256) bad('heapMb', p.heapMb);
  if (!/^(s3:\/\/[a-z0-9.-]+\/[A-Za-z0-9._/-]+|\/[A-Za-z0-9._/-]+)$/.test(p.asset)) bad('asset', p.asset);
  for (const k of ['home', 'dataDir'] as const) if (!SAFE_PATH.test(p[k])) bad(k, p[k]);
  for (const k of ['listenAddress', 'dc', 'rack'] as const) if (!SAFE_ADDR.test(p[k])) bad(k, p[k]);
  for (const k of ['nativePort', 'storagePort'] as const)
    if (!Number.isInteger(p[k]) || p[k] < 1 || p[k] > 65535) bad(k, p[k]);
  if (p.java !== 'install' && !SAFE_PATH.test(p.java)) bad('java', p.java);
  if (!['PasswordAuthenticator', 'AllowAllAuthenticator'].includes(p.authenticator))
    bad('authenticator', p.authenticator);
}

/** cassandra.yaml, with the script's shell variables (expanded by the heredoc that writes it). */
const CASSANDRA_YAML = `cluster_name: '\${FB_CLUSTER_NAME}'
num_tokens: 1
initial_token: \${FB_TOKEN}
auto_bootstrap: false
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "\${FB_SEEDS}"
listen_address: \${FB_LISTEN}
rpc_address: \${FB_LISTEN}
storage_port: \${FB_STORAGE_PORT}
start_native_transport: true
native_transport_port: \${FB_NATIVE_PORT}
endpoint_snitch: GossipingPropertyFileSnitch
data_file_directories:
  - \${FB_DATA}/data
commitlog_directory: \${FB_DATA}/commitlog
saved_caches_directory: \${FB_DATA}/saved_caches
hints_directory: \${FB_DATA}/hints
cdc_raw_directory: \${FB_DATA}/cdc_raw
commitlog_sync: periodic
commitlog_sync_period: 10000ms
authenticator: \${FB_AUTHENTICATOR}
authorizer: AllowAllAuthorizer
`;

/**
 * The node's bootstrap script: the parameters as shell variables, then one body for EC2 and the local mode.
 * On EC2 it is the user data (cloud-init runs it as root at first boot).
 */
export function cassandraBootstrapScript(p: CassandraNodeParams): string {
  checkParams(p);
  const vars: [string, string][] = [
    ['FB_CLUSTER_NAME', p.clusterName],
    ['FB_SEEDS', p.seeds.join(',')],
    ['FB_TOKEN', p.initialToken],
    ['FB_HEAP_MB', String(p.heapMb)],
    ['FB_ASSET', p.asset],
    ['FB_HOME', p.home],
    ['FB_DATA', p.dataDir],
    ['FB_DATA_VOLUME', p.dataVolume],
    ['FB_LISTEN', p.listenAddress],
    ['FB_DC', p.dc],
    ['FB_RACK', p.rack],
    ['FB_NATIVE_PORT', String(p.nativePort)],
    ['FB_STORAGE_PORT', String(p.storagePort)],
    ['FB_RUN', p.run],
    ['FB_JAVA', p.java],
    ['FB_AUTHENTICATOR', p.authenticator],
  ];
  return [
    '#!/bin/bash',
    '# fleetbench cassandra-ec2 node bootstrap (generated by lib/core/targets/cassandra-ec2/node.ts)',
    'set -euo pipefail',
    ...vars.map(([k, v]) => `${k}=${sq(v)}`),
    `FB_JVM_OPTIONS=(${jvmOptions(p).map(sq).join(' ')})`,
    // the body is String.raw (backslashes kept for bash); "$%{" stands for bash's "${" there
    BODY.replaceAll('$%{', '${'),
  ].join('\n');
}

const BODY =
  String.raw`
log() { echo "fleetbench-cassandra: $*" >&2; }

# --- where the node is: the instance metadata (IMDSv2) on EC2, the given values locally
if [ "$FB_LISTEN" = imds ] || [ "$FB_DC" = imds ] || [ "$FB_RACK" = imds ]; then
  IMDS_TOKEN=$(curl -sf -X PUT http://169.254.169.254/latest/api/token -H "X-aws-ec2-metadata-token-ttl-seconds: 300")
  imds() { curl -sf -H "X-aws-ec2-metadata-token: $IMDS_TOKEN" "http://169.254.169.254/latest/meta-data/$1"; }
  [ "$FB_LISTEN" = imds ] && FB_LISTEN=$(imds local-ipv4)
  AWS_DEFAULT_REGION=$(imds placement/region); export AWS_DEFAULT_REGION
  [ "$FB_DC" = imds ] && FB_DC=$AWS_DEFAULT_REGION
  [ "$FB_RACK" = imds ] && FB_RACK=$(imds placement/availability-zone)
fi
[ -n "$FB_SEEDS" ] || FB_SEEDS="$FB_LISTEN:$FB_STORAGE_PORT"

# --- Java 17 (Cassandra 5.0 runs on 11 and 17)
if [ "$FB_JAVA" = install ]; then
  if ! java -version 2>&1 | grep -q 'version "\(17\|2[0-9]\)'; then
    dnf install -y -q java-17-amazon-corretto-headless
  fi
  FB_JAVA=$(command -v java)
fi

# --- the data volume: the node's EBS volume (not the root disk, not instance storage), xfs, on FB_DATA
if [ "$FB_DATA_VOLUME" = ebs ]; then
  root_disk=$(lsblk -no PKNAME "$(findmnt -no SOURCE /)" | head -1)
  dev=""
  if [ -e /dev/sdf ]; then dev=$(readlink -f /dev/sdf); fi
  if [ -z "$dev" ]; then
    dev=$(lsblk -dpno NAME,MODEL | awk -v r="/dev/$root_disk" '$1 != r && /Elastic Block Store/ {print $1; exit}')
  fi
  [ -n "$dev" ] || { log "no EBS data volume found"; exit 1; }
  blkid "$dev" >/dev/null 2>&1 || mkfs.xfs -q "$dev"
  mkdir -p "$FB_DATA"
  mountpoint -q "$FB_DATA" || mount -o noatime "$dev" "$FB_DATA"
  grep -q " $FB_DATA " /etc/fstab || echo "UUID=$(blkid -s UUID -o value "$dev") $FB_DATA xfs noatime,nofail 0 2" >> /etc/fstab
fi
mkdir -p "$FB_DATA"/{data,commitlog,saved_caches,hints,cdc_raw}

# --- Apache Cassandra from the asset (Maven Central's cassandra-all and its dependencies: lib/*.jar)
mkdir -p "$FB_HOME/conf" "$FB_HOME/logs"
case "$FB_ASSET" in
  s3://*) aws s3 cp --only-show-errors "$FB_ASSET" "$FB_HOME/cassandra.tar.gz"; archive="$FB_HOME/cassandra.tar.gz" ;;
  *) archive="$FB_ASSET" ;;
esac
tar -xzf "$archive" -C "$FB_HOME"
[ "$archive" = "$FB_HOME/cassandra.tar.gz" ] && rm -f "$archive"
log "Apache Cassandra $(cat "$FB_HOME/VERSION") on $FB_LISTEN (dc $FB_DC, rack $FB_RACK), heap $FB_HEAP_MB MB, seeds $FB_SEEDS"

# --- configuration
cat > "$FB_HOME/conf/cassandra.yaml" <<EOF
` +
  CASSANDRA_YAML +
  String.raw`EOF
printf 'dc=%s\nrack=%s\n' "$FB_DC" "$FB_RACK" > "$FB_HOME/conf/cassandra-rackdc.properties"
cat > "$FB_HOME/conf/logback.xml" <<EOF
<configuration>
  <appender name="F" class="ch.qos.logback.core.FileAppender"><file>$FB_HOME/logs/system.log</file>
    <encoder><pattern>%d %-5level [%thread] %logger{20} - %msg%n</pattern></encoder></appender>
  <root level="INFO"><appender-ref ref="F"/></root>
</configuration>
EOF
{
  printf '%s\n' "$%{FB_JVM_OPTIONS[@]}"
  printf '%s\n' "-Dcassandra.config=file://$FB_HOME/conf/cassandra.yaml" "-Dcassandra.storagedir=$FB_DATA" \
    "-Dcassandra.logdir=$FB_HOME/logs" "-Dlogback.configurationFile=$FB_HOME/conf/logback.xml"
} > "$FB_HOME/conf/jvm.args"
CLASSPATH_ARG="$FB_HOME/conf:$FB_HOME/lib/*"

# --- start
if [ "$FB_RUN" = foreground ]; then
  exec "$FB_JAVA" "@$FB_HOME/conf/jvm.args" -cp "$CLASSPATH_ARG" org.apache.cassandra.service.CassandraDaemon
fi
id cassandra >/dev/null 2>&1 || useradd --system --home-dir "$FB_HOME" --shell /sbin/nologin cassandra
chown -R cassandra:cassandra "$FB_HOME" "$FB_DATA"
cat > /etc/systemd/system/fleetbench-cassandra.service <<EOF
[Unit]
Description=Apache Cassandra (fleetbench)
After=network-online.target
[Service]
User=cassandra
ExecStart=$FB_JAVA @$FB_HOME/conf/jvm.args -cp $CLASSPATH_ARG org.apache.cassandra.service.CassandraDaemon
LimitNOFILE=1048576
LimitMEMLOCK=infinity
LimitNPROC=32768
Restart=no
[Install]
WantedBy=multi-user.target
EOF
systemctl daemon-reload
systemctl enable --now fleetbench-cassandra.service
log "started"
`;

/** The parameter variables of the script, in its header. */
export type ScriptVariable =
  | 'FB_CLUSTER_NAME'
  | 'FB_SEEDS'
  | 'FB_TOKEN'
  | 'FB_HEAP_MB'
  | 'FB_ASSET'
  | 'FB_HOME'
  | 'FB_DATA'
  | 'FB_DATA_VOLUME'
  | 'FB_LISTEN'
  | 'FB_DC'
  | 'FB_RACK'
  | 'FB_NATIVE_PORT'
  | 'FB_STORAGE_PORT'
  | 'FB_RUN'
  | 'FB_JAVA'
  | 'FB_AUTHENTICATOR';

/** A parameter's value in a script (the header's assignment), or undefined. */
export function scriptVariable(script: string, name: ScriptVariable): string | undefined {
  const m = new RegExp(`^${name}='((?:[^']|'\\\\'')*)'$`, 'm').exec(script);
  return m ? m[1]!.replace(/'\\''/g, "'") : undefined;
}

/**
 * The same script with other parameter values (the local mode: loopback address, free ports, a
 * temporary directory, its own Java, a small heap). Only the header's assignments change; the body the
 * pipeline generated runs as it is. Throws when a variable is not in the header.
 */
export function withParameters(
  script: string,
  values: Partial<Record<ScriptVariable, string>>,
  jvm?: Pick<CassandraNodeParams, 'heapMb' | 'extraJvmOptions'>,
): string {
  const body = script.indexOf('\nlog() {');
  if (body < 0) throw new Error('not a fleetbench Cassandra bootstrap script');
  let head = script.slice(0, body);
  for (const [k, v] of Object.entries(values)) {
    const re = new RegExp(`^${k}=.*$`, 'm');
    if (!re.test(head)) throw new Error(`no ${k} in the script's parameters`);
    head = head.replace(re, () => `${k}=${sq(v)}`);
  }
  if (jvm) {
    head = head.replace(/^FB_HEAP_MB=.*$/m, () => `FB_HEAP_MB=${sq(String(jvm.heapMb))}`);
    head = head.replace(
      /^FB_JVM_OPTIONS=\(.*\)$/m,
      () => `FB_JVM_OPTIONS=(${jvmOptions(jvm).map(sq).join(' ')})`,
    );
  }
  return head + script.slice(body);
}
