/**
 * What the stack adds for the target kinds that bring a service of their own: each kind's construct from the
 * registry ./kind-constructs.ts, given the loader fleet (the network their resources go in) and the functions that
 * provision, watch and remove targets (each construct grants the ones it needs and sets their environment).
 */
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { KindServices } from '../core/common/ports';
import type { TargetFunctions } from './grants';
import type { LoaderFleet } from './loader-fleet';
import * as KIND_CONSTRUCTS from './kind-constructs';

export interface KindConstructProps {
  readonly fleet: LoaderFleet;
  readonly functions: TargetFunctions;
  /** The Plan step's function: a resume checks what the failed execution's teardown may not have finished removing. */
  readonly plan?: lambda.Function;
}

/** A kind's construct: its id in the stack's tree (kept across versions: logical ids and metadata derive from it). */
export interface KindConstruct {
  new (scope: Construct, id: string, props: KindConstructProps): Construct;
  readonly constructId: string;
}

/** Each kind's construct: a kind that declares a service and has no line in ./kind-constructs.ts fails here. */
const KIND_CONSTRUCT_CLASSES: { [K in keyof KindServices]: KindConstruct } = KIND_CONSTRUCTS;

/** Adds every kind's construct to the stack. */
export function addKindConstructs(scope: Construct, props: KindConstructProps): Construct[] {
  const classes: Record<string, KindConstruct> = KIND_CONSTRUCT_CLASSES;
  return Object.values(classes).map((C) => new C(scope, C.constructId, props));
}
