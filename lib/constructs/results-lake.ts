import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { NAMED_QUERIES } from '../core/pipeline/named-queries';
import { TABLES, glueColumns } from '../core/results/schema';

export interface ResultsLakeProps {
  /** Days after which raw outputs under `runs/` move to Infrequent Access. @default 30 */
  readonly rawInfrequentAccessAfterDays?: number;
  /** Days after which raw outputs under `runs/` are deleted. @default 365 */
  readonly rawExpireAfterDays?: number;
  /**
   * Days an overwritten or deleted object's previous version is kept (the bucket is versioned: a job file,
   * a jar under bindings/ or a result overwritten by mistake or by a compromised loader can be restored).
   * @default 30
   */
  readonly noncurrentVersionExpireAfterDays?: number;
  /** Athena per-query scan limit. @default 10 GiB */
  readonly bytesScannedCutoffPerQuery?: number;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The results bucket (raw outputs under `runs/`, table rows under `tables/`), the Glue database and
 * tables generated from lib/core/results/schema.ts (JSON lines, partition projection on run_date and
 * spec_name), and an Athena workgroup with an enforced result location, a scan limit and named queries.
 */
export class ResultsLake extends Construct {
  readonly bucket: s3.Bucket;
  readonly databaseName: string;
  readonly workGroupName: string;
  readonly tables: Record<string, glue.CfnTable> = {};

  constructor(scope: Construct, id: string, props: ResultsLakeProps = {}) {
    super(scope, id);
    const stack = Stack.of(this);
    this.bucket = resultsBucket(this, props);

    this.databaseName = `fleetbench_${stack.stackName.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;
    const db = new glue.CfnDatabase(this, 'Database', {
      catalogId: stack.account,
      databaseInput: { name: this.databaseName, description: 'fleetbench results (runs, cells, intervals)' },
    });

    for (const t of TABLES) {
      const table = glueTable(this, { table: t, databaseName: this.databaseName, bucket: this.bucket });
      table.addResourceDependency(db);
      this.tables[t.name] = table;
    }

    this.workGroupName = `fleetbench-${stack.stackName}`.slice(0, 128);
    const wg = new athena.CfnWorkGroup(this, 'WorkGroup', {
      name: this.workGroupName,
      description: 'fleetbench results queries',
      state: 'ENABLED',
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        bytesScannedCutoffPerQuery: props.bytesScannedCutoffPerQuery ?? 10 * 1024 ** 3,
        resultConfiguration: {
          outputLocation: `s3://${this.bucket.bucketName}/athena-results/`,
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
      },
    });
    for (const q of NAMED_QUERIES) {
      const nq = new athena.CfnNamedQuery(this, `Query-${q.name}`, {
        name: q.name,
        description: `${q.description} (parameters: the spec name${q.parameters > 1 ? `, ${q.parameters} times` : ''})`,
        database: this.databaseName,
        workGroup: this.workGroupName,
        queryString: q.sql,
      });
      nq.addResourceDependency(wg);
      nq.addResourceDependency(db);
    }
  }
}

/** The results bucket: encrypted, TLS only, versioned; raw outputs to Infrequent Access then expired, old versions expired. */
function resultsBucket(scope: Construct, props: ResultsLakeProps): s3.Bucket {
  const iaDays = props.rawInfrequentAccessAfterDays ?? 30;
  const expireDays = props.rawExpireAfterDays ?? 365;
  return new s3.Bucket(scope, 'Bucket', {
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    versioned: true,
    removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    lifecycleRules: [
      {
        id: 'raw-outputs',
        prefix: 'runs/',
        transitions: [
          { storageClass: s3.StorageClass.INFREQUENT_ACCESS, transitionAfter: Duration.days(iaDays) },
        ],
        expiration: Duration.days(Math.max(expireDays, iaDays + 1)),
      },
      { id: 'athena-results', prefix: 'athena-results/', expiration: Duration.days(30) },
      { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(7) },
      // versioning keeps what is overwritten or deleted for a while, not forever
      {
        id: 'noncurrent-versions',
        noncurrentVersionExpiration: Duration.days(props.noncurrentVersionExpireAfterDays ?? 30),
        expiredObjectDeleteMarker: true,
      },
    ],
  });
}

/** One Glue table of lib/core/results/schema.ts: JSON lines under tables/<name>/, partition projection on run_date and spec_name. */
function glueTable(
  scope: Construct,
  {
    table: t,
    databaseName,
    bucket,
  }: { table: (typeof TABLES)[number]; databaseName: string; bucket: s3.IBucket },
): glue.CfnTable {
  const g = glueColumns(t.name);
  const cfn = (c: { Name: string; Type: string; Comment: string }): glue.CfnTable.ColumnProperty => ({
    name: c.Name,
    type: c.Type,
    comment: c.Comment,
  });
  const columns = g.columns.map(cfn);
  const partitionKeys = g.partitionKeys.map(cfn);
  const location = `s3://${bucket.bucketName}/tables/${t.name}/`;
  return new glue.CfnTable(scope, `Table${t.name}`, {
    catalogId: Stack.of(scope).account,
    databaseName,
    tableInput: {
      name: t.name,
      description: t.description,
      tableType: 'EXTERNAL_TABLE',
      partitionKeys,
      parameters: {
        classification: 'json',
        'projection.enabled': 'true',
        'projection.run_date.type': 'date',
        'projection.run_date.format': 'yyyy-MM-dd',
        'projection.run_date.range': '2024-01-01,NOW',
        'projection.run_date.interval': '1',
        'projection.run_date.interval.unit': 'DAYS',
        'projection.spec_name.type': 'injected',
        'storage.location.template': `${location}run_date=\${run_date}/spec_name=\${spec_name}/`,
      },
      storageDescriptor: {
        columns,
        location,
        inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
        outputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
        serdeInfo: {
          serializationLibrary: 'org.openx.data.jsonserde.JsonSerDe',
          parameters: { 'ignore.malformed.json': 'false' },
        },
      },
    },
  });
}
