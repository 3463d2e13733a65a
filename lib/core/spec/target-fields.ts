/**
 * The fields every target kind's spec schema shares (its id, the latency it assumes for sizing) and the field
 * types several kinds use: what each kind's spec module (lib/core/targets/<kind>/spec.ts) builds its schema from,
 * and what the spec schema (./schema.ts) builds the target union from (lib/core/targets/specs.ts).
 */
import { z } from 'zod';

export const id = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]{0,31}$/,
    'a lower-case id: a letter, then letters, digits or "-", at most 32 characters',
  );

export const positiveInt = z.number().int().positive();

/** The fields of every target. */
export const targetCommon = {
  id,
  /** Mean latency assumed for loader sizing (Little's Law), in milliseconds. */
  expectedLatencyMs: z.number().positive().max(60_000).optional(),
};

export const ec2InstanceType = z
  .string()
  .regex(/^[a-z][a-z0-9-]*\.[a-z0-9]+$/, 'an EC2 instance type such as "i4i.2xlarge"');

/** What a kind's spec module declares: its target schema (over targetCommon) and its default expected latency. */
export interface TargetSpec<S extends z.ZodType = z.ZodType> {
  schema: S;
  /** The mean latency (ms) loader sizing assumes (Little's Law) when a target does not give `expectedLatencyMs`. */
  expectedLatencyMs: number;
  /** Where the kind comes among the kinds users read (the spec schema's union, its error messages): lowest first. */
  order: number;
}
