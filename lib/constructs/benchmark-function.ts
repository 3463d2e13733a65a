import * as path from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The repository root (lambdas/ and lib/ live under it). */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

export interface BenchmarkFunctionProps {
  /** Entry file under `lambdas/`. */
  readonly entry: string;
  /** @default Duration.minutes(1) */
  readonly timeout?: Duration;
  /** @default 512 */
  readonly memorySize?: number;
  readonly environment?: Record<string, string>;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
}

/**
 * Every Lambda of the pipeline: NodejsFunction bundled offline by the local esbuild (never Docker),
 * Node.js 22 on ARM64, active X-Ray tracing, source maps, its own log group with a retention, and
 * the AWS SDK v3 left to the runtime. Roles get only the statements their step needs (granted by
 * the caller), never a shared copy-pasted block.
 */
export class BenchmarkFunction extends NodejsFunction {
  readonly logGroupRef: logs.LogGroup;

  constructor(scope: Construct, id: string, props: BenchmarkFunctionProps) {
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    super(scope, id, {
      entry: path.join(PROJECT_ROOT, 'lambdas', props.entry),
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      tracing: lambda.Tracing.ACTIVE,
      timeout: props.timeout ?? Duration.minutes(1),
      memorySize: props.memorySize ?? 512,
      logGroup,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'fleetbench',
        ...props.environment,
      },
      bundling: {
        forceDockerBundling: false,
        sourceMap: true,
        minify: true,
        target: 'node22',
        externalModules: ['@aws-sdk/*'],
        // the price books are imported JSON (lib/core/cost/book.ts), bundled into the code
        loader: { '.json': 'json' },
      },
    });
    this.logGroupRef = logGroup;
  }
}
