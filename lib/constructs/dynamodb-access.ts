/**
 * What DynamoDB tables (dynamodb targets) need in the account: IAM only. The pipeline steps that create, size,
 * wait for and delete a run's tables get the DynamoDB control-plane actions on `fleetbench-*` tables (the names
 * lib/core/common/ports.ts's TABLE_PREFIX starts), DescribeTable on any table (an `existingTable` is read, never
 * changed) and ListTables (no resource type). The loaders' data-plane actions are the loader role's
 * (LoaderFleet); the janitor's are the janitor's; docs/iam.md has the whole picture.
 */
import { Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { grant, type TargetFunctions } from './grants';
import { TABLE_PREFIX } from '../core/common/ports';

export interface DynamoDbAccessProps {
  /** The step functions that create, wait for and delete tables. */
  readonly functions: Pick<TargetFunctions, 'provisionTarget' | 'waitReady' | 'teardown' | 'onAbort'>;
  /** ConfigureCell: gives a provisioned table the cell's capacity (DescribeTable, UpdateTable). */
  readonly configureCell: lambda.Function;
}

export class DynamoDbAccess extends Construct {
  constructor(scope: Construct, id: string, props: DynamoDbAccessProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const runTables = stack.formatArn({
      service: 'dynamodb',
      resource: 'table',
      resourceName: `${TABLE_PREFIX}*`,
    });
    const anyTable = stack.formatArn({ service: 'dynamodb', resource: 'table', resourceName: '*' });
    const f = props.functions;

    // ProvisionTarget: creates and tags the run's tables (a retry reads their tags to adopt them), describes any
    // table (an existing table included), lists tables
    grant(
      f.provisionTarget,
      'CreateTables',
      ['dynamodb:CreateTable', 'dynamodb:TagResource', 'dynamodb:ListTagsOfResource'],
      [runTables],
    );
    grant(f.provisionTarget, 'DescribeTables', ['dynamodb:DescribeTable'], [anyTable]);
    grant(f.provisionTarget, 'ListTables', ['dynamodb:ListTables'], ['*']);
    // WaitReady: is every table ACTIVE
    grant(f.waitReady, 'DescribeTables', ['dynamodb:DescribeTable'], [anyTable]);
    // ConfigureCell: the cell's capacity on the run's provisioned tables
    grant(props.configureCell, 'DescribeTables', ['dynamodb:DescribeTable'], [anyTable]);
    grant(props.configureCell, 'SetCapacity', ['dynamodb:UpdateTable'], [runTables]);
    // Teardown and the abort rule's handler: delete the run's tables (the code checks the run tag first)
    for (const fn of [f.teardown, f.onAbort]) {
      grant(
        fn,
        'DeleteTables',
        ['dynamodb:DeleteTable', 'dynamodb:DescribeTable', 'dynamodb:ListTagsOfResource'],
        [runTables],
      );
      grant(fn, 'ListTables', ['dynamodb:ListTables'], ['*']);
    }
  }
}
