/**
 * The PriceBookRefresh construct on its own (a small stack with a results bucket): its role may call
 * pricing:GetProducts and write prices/ of the bucket, nothing else; it runs monthly and when the stack has
 * been created or updated; cdk-nag findings acknowledged with reasons; cfn-lint clean.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PriceBookRefresh } from '../../lib/constructs/price-book-refresh';
import { NAG_ACKNOWLEDGEMENTS } from '../../stacks/nag-suppressions';
import { cfnLintErrors } from '../support/cfn-lint';

jest.setTimeout(120_000);

let stack: Stack;
let template: Template;
beforeAll(() => {
  const app = new App();
  stack = new Stack(app, 'PricesTest', { env: { account: '123456789012', region: 'eu-west-1' } });
  const bucket = new s3.Bucket(stack, 'ResultsBucket', { enforceSSL: true });
  new PriceBookRefresh(stack, 'PriceBooks', { resultsBucket: bucket });
  template = Template.fromStack(stack);
});

type Statement = { Action: string | string[]; Resource: unknown; Effect: string };
const statements = (): Statement[] =>
  Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
    (p) =>
      (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument
        .Statement,
  );

test("the role: pricing:GetProducts and writing the bucket's prices/ only", () => {
  const all = statements();
  const actions = all.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])).sort();
  // X-Ray tracing (BenchmarkFunction's active tracing) is CDK's own statement
  expect(actions.filter((a) => !a.startsWith('xray:'))).toEqual(
    [
      'pricing:GetProducts',
      's3:Abort*',
      's3:PutObject',
      's3:PutObjectLegalHold',
      's3:PutObjectRetention',
      's3:PutObjectTagging',
      's3:PutObjectVersionTagging',
    ].sort(),
  );
  const put = all.find((s) => JSON.stringify(s.Action).includes('s3:PutObject'))!;
  expect(JSON.stringify(put.Resource)).toMatch(/\/prices\/\*"/);
  const pricing = all.find((s) => s.Action === 'pricing:GetProducts')!;
  expect(pricing.Resource).toBe('*');
});

test('it runs monthly and after every create or update of the stack, with the function as the target', () => {
  template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'cron(0 6 1 * ? *)' });
  template.hasResourceProperties('AWS::Events::Rule', {
    EventPattern: {
      source: ['aws.cloudformation'],
      'detail-type': ['CloudFormation Stack Status Change'],
      resources: [{ Ref: 'AWS::StackId' }],
      detail: { 'status-details': { status: ['CREATE_COMPLETE', 'UPDATE_COMPLETE'] } },
    },
    Targets: [Match.objectLike({ Arn: Match.anyValue() })],
  });
  template.resourceCountIs('AWS::Lambda::Permission', 2);
});

test('cdk-nag: every finding of the construct is acknowledged with a reason', () => {
  const findings = new AwsSolutionsChecks().validateScope(stack).violations.map((v) => v.ruleName);
  // the stand-in bucket's own findings (access logs) belong to this test's stack
  const ours = findings.filter((f) => f !== 'AwsSolutions-S1');
  expect(ours).toEqual(expect.arrayContaining(['AwsSolutions-IAM5[Resource::*]']));
  expect(ours.filter((f) => !NAG_ACKNOWLEDGEMENTS.some((a) => a.pattern.test(f)))).toEqual([]);
});

test('cfn-lint reports no errors', () => {
  expect(cfnLintErrors(template.toJSON())).toEqual([]);
});
