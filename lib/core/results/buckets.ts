/**
 * A cell's measured-window buckets and latency spectra, as the Aggregate step writes them next to the cell's
 * result (`runs/<runId>/cells/<cellId>/buckets.json`): what `fleetbench compare` resamples and what the report's
 * percentile spectrum draws. One schema, read by the report, the comparison and the CLI alike.
 */
import { z } from 'zod';
import { InputError } from '../common/errors';
import type { CellAggregate } from './aggregate';

const sparse = z
  .object({
    lowest: z.number().int().min(1),
    digits: z.number().int().min(0).max(5),
    i: z.array(z.number().int().min(0)),
    c: z.array(z.number().min(0)),
  })
  .strict()
  .refine((s) => s.i.length === s.c.length, 'i and c must have the same length');

const spectrum = z.array(z.tuple([z.number().min(0).max(100), z.number().min(0)]));

export const CellBucketsSchema = z
  .object({
    cellId: z.string().min(1),
    /** the series bucket length the buckets were cut at (the status interval) */
    seriesSeconds: z.number().positive(),
    buckets: z.array(
      z
        .object({
          offsetSeconds: z.number(),
          seconds: z.number().min(0),
          good: z.number().min(0),
          failed: z.number().min(0),
          intended: sparse.nullable(),
          service: sparse.nullable(),
        })
        .strict(),
    ),
    /** per operation family (READ, UPDATE, ALL): intended and service latency by percentile, µs */
    spectrum: z.record(z.string(), z.object({ intended: spectrum, service: spectrum }).strict()),
  })
  .strict();

export type CellBuckets = z.output<typeof CellBucketsSchema>;

/** The buckets object of a cell, from its aggregate. */
export function cellBucketsOf(cellId: string, seriesSeconds: number, agg: CellAggregate): CellBuckets {
  return {
    cellId,
    seriesSeconds,
    buckets: agg.windowBuckets,
    spectrum: Object.fromEntries(Object.entries(agg.families).map(([f, v]) => [f, v.spectrum])),
  };
}

/** Parses a buckets object; `source` names it in the error. */
export function parseCellBuckets(value: unknown, source: string): CellBuckets {
  const r = CellBucketsSchema.safeParse(value);
  if (r.success) return r.data;
  throw new InputError(
    r.error.issues.map((i) => ({
      path: `${source}${i.path.length ? ':' + i.path.join('.') : ''}`,
      message: i.message,
    })),
  );
}
