/**
 * MetricsSink as CloudWatch Embedded Metric Format: one JSON line on stdout per put, which Lambda's
 * log pipeline turns into metrics (no API call, no extra dimension such as Powertools' `service`).
 */
import type { MetricDatum, MetricsSink } from '../core/common/ports';
import { METRICS_NAMESPACE } from './cloudwatch-metrics';

export class EmfMetricsSink implements MetricsSink {
  constructor(
    private readonly write: (line: string) => void = (l) => process.stdout.write(l + '\n'),
    private readonly now: () => number = Date.now,
  ) {}

  async put(dimensions: Record<string, string>, data: MetricDatum[]): Promise<void> {
    if (!data.length) return;
    const doc: Record<string, unknown> = {
      _aws: {
        Timestamp: this.now(),
        CloudWatchMetrics: [
          {
            Namespace: METRICS_NAMESPACE,
            Dimensions: [Object.keys(dimensions)],
            Metrics: data.map((d) => ({ Name: d.name, Unit: d.unit })),
          },
        ],
      },
      ...dimensions,
    };
    for (const d of data) doc[d.name] = d.value;
    this.write(JSON.stringify(doc));
  }
}
