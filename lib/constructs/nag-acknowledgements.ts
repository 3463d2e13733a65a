/**
 * cdk-nag findings a construct accepts for its own resources and grants, with their reasons: a kind's construct
 * (./kind-constructs.ts) records its own here, so the stack's list (stacks/nag-suppressions.ts) names no kind of its
 * own; the stack's check joins the reasons of every entry a finding matches.
 */
import { Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** A finding pattern (cdk-nag v3's granular ids, `AwsSolutions-IAM5[Resource::...]`) and why it is accepted. */
export interface NagAcknowledgement {
  pattern: RegExp;
  reason: string;
  /** Findings of the private network mode only. */
  network?: 'private';
}

const BY_STACK = new WeakMap<Stack, NagAcknowledgement[]>();

/** Records findings the construct's own resources and grants raise in its stack, each with its reason. */
export function acknowledgeNagFindings(scope: IConstruct, acks: readonly NagAcknowledgement[]): void {
  const stack = Stack.of(scope);
  BY_STACK.set(stack, [...(BY_STACK.get(stack) ?? []), ...acks]);
}

/** The findings the stack's constructs recorded (acknowledgeNagFindings). */
export function nagAcknowledgementsOf(stack: Stack): readonly NagAcknowledgement[] {
  return BY_STACK.get(stack) ?? [];
}
