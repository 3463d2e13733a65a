/**
 * What the target constructs (DbNodes, DaxAccess, KeyspacesAccess) share: the pipeline functions that
 * provision, wait for, configure and remove a target, and one way to add a statement to a function's role.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';

/** The step functions a target's construct grants (each takes the ones it needs). */
export interface TargetFunctions {
  provisionTarget: lambda.Function;
  waitReady: lambda.Function;
  startLoad: lambda.Function;
  startCell: lambda.Function;
  teardown: lambda.Function;
  onAbort: lambda.Function;
  janitor: lambda.Function;
}

/** Adds one statement (with its sid, and conditions when given) to the function's role. */
export function grant(
  fn: lambda.Function,
  sid: string,
  actions: string[],
  resources: string[],
  conditions?: Record<string, unknown>,
): void {
  fn.addToRolePolicy(
    new iam.PolicyStatement({ sid, actions, resources, ...(conditions ? { conditions } : {}) }),
  );
}
