/**
 * The stack's idle cost per network mode, computed from the template each mode synthesizes (with
 * bundling skipped: only the resources matter) and the newest price book. Used by
 * `fleetbench idle-cost`, the README's figures and their test.
 */
import { App } from 'aws-cdk-lib';
import type { NetworkMode } from '../lib/constructs/loader-fleet';
import { idleCost, loadPriceBook, type IdleCost, type PriceBook, type TemplateLike } from '../lib/core/cost';
import { FleetbenchStack } from './fleetbench-stack';

export type IdleMode = NetworkMode | 'existing-vpc';
export const IDLE_MODES: readonly IdleMode[] = ['public', 'private', 'existing-vpc'];

/** The template of the stack as `cdk synth` makes it in `mode` (us-east-1, the price book's region). */
export function synthTemplate(mode: IdleMode): TemplateLike {
  return synthStack(mode).template;
}

export function synthStack(mode: IdleMode): { stack: FleetbenchStack; template: TemplateLike } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new FleetbenchStack(app, `IdleCost-${mode}`, {
    env: { account: '123456789012', region: 'us-east-1' },
    // `public` is the default: synthesized without a network setting, as `npx cdk deploy` does
    ...(mode === 'existing-vpc'
      ? { vpcId: 'vpc-0123456789abcdef0' }
      : mode === 'private'
        ? { network: mode }
        : {}),
  });
  // the existing-VPC lookup has no context here: CDK's template validation would print warnings about
  // its dummy VPC id, which do not matter for pricing
  const saved = process.env.CDK_VALIDATION;
  process.env.CDK_VALIDATION = 'false';
  try {
    return { stack, template: app.synth().getStackByName(stack.stackName).template as TemplateLike };
  } finally {
    if (saved === undefined) delete process.env.CDK_VALIDATION;
    else process.env.CDK_VALIDATION = saved;
  }
}

export function idleCostOf(mode: IdleMode, priceBook?: string | PriceBook): IdleCost {
  return idleCost(synthTemplate(mode), loadPriceBook(priceBook));
}
