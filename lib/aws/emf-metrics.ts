/**
 * MetricsSink as CloudWatch Embedded Metric Format: one JSON line on stdout per put, which Lambda's
 * log pipeline turns into metrics (no API call, no extra dimension such as Powertools' `service`).
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
 */
import type { MetricDatum, MetricsSink } from '../core/common/ports';
import { METRICS_NAMESPACE } from './cloudwatch-metrics';

/**
 * One EMF document (namespace Fleetbench): the metrics `data` under `dimensions` (one dimension set, possibly empty),
 * and `properties` beside them (logged, not metrics).
 */
export function emfDocument(args: {
  dimensions: Record<string, string>;
  data: MetricDatum[];
  timestampMs: number;
  properties?: Record<string, string | number>;
}): string {
  const doc: Record<string, unknown> = {
    _aws: {
      Timestamp: args.timestampMs,
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [Object.keys(args.dimensions)],
          Metrics: args.data.map((d) => ({ Name: d.name, Unit: d.unit })),
        },
      ],
    },
    ...args.properties,
    ...args.dimensions,
  };
  for (const d of args.data) doc[d.name] = d.value;
  return JSON.stringify(doc);
}

export class EmfMetricsSink implements MetricsSink {
  constructor(
    private readonly write: (line: string) => void = (l) => process.stdout.write(l + '\n'),
    private readonly now: () => number = Date.now,
  ) {}

  async put(dimensions: Record<string, string>, data: MetricDatum[]): Promise<void> {
    if (!data.length) return;
    this.write(emfDocument({ dimensions, data, timestampMs: this.now() }));
  }
}
