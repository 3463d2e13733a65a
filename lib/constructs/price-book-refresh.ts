import { Duration, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { PRICES_PREFIX } from '../core/cost/book-choice';
import { BenchmarkFunction } from './benchmark-function';
import { grant } from './grants';

export interface PriceBookRefreshProps {
  /** The results bucket: the book goes to prices/<region>/<id>.json, where Plan looks for it. */
  readonly resultsBucket: s3.IBucket;
  /** @default events.Schedule.cron({ day: '1', hour: '6', minute: '0' }) (monthly) */
  readonly schedule?: events.Schedule;
}

/**
 * Keeps the stack's price book current: a function that asks the AWS Price List Query API for every price the
 * cost model uses in the stack's region (lib/core/pipeline/prices.ts, refreshPrices) and writes the book into
 * the results bucket, monthly and after every deploy of the stack (CloudFormation's own stack-status event).
 * Its role may call pricing:GetProducts (the API has no resource-level permissions) and write prices/ only.
 */
export class PriceBookRefresh extends Construct {
  readonly fn: BenchmarkFunction;
  readonly monthly: events.Rule;
  readonly onDeploy: events.Rule;

  constructor(scope: Construct, id: string, props: PriceBookRefreshProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.fn = new BenchmarkFunction(this, 'RefreshPricesFn', {
      entry: 'refresh-prices.ts',
      // a few dozen GetProducts pages
      timeout: Duration.minutes(2),
      environment: { RESULTS_BUCKET: props.resultsBucket.bucketName },
    });
    grant(this.fn, 'GetProducts', ['pricing:GetProducts'], ['*']);
    props.resultsBucket.grantPut(this.fn, `${PRICES_PREFIX}*`);
    this.monthly = new events.Rule(this, 'Monthly', {
      schedule: props.schedule ?? events.Schedule.cron({ day: '1', hour: '6', minute: '0' }),
      targets: [new targets.LambdaFunction(this.fn, { retryAttempts: 2 })],
    });
    this.onDeploy = new events.Rule(this, 'OnDeploy', {
      description: 'refresh the price book when the stack has been created or updated',
      eventPattern: {
        source: ['aws.cloudformation'],
        detailType: ['CloudFormation Stack Status Change'],
        resources: [stack.stackId],
        detail: { 'status-details': { status: ['CREATE_COMPLETE', 'UPDATE_COMPLETE'] } },
      },
      targets: [new targets.LambdaFunction(this.fn, { retryAttempts: 2 })],
    });
  }
}
