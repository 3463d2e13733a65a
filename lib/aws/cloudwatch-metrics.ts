/** MetricsSink with PutMetricData (namespace Fleetbench). Lambdas use EMF instead (lambdas/shared). */
import {
  CloudWatchClient,
  PutMetricDataCommand,
  type CloudWatchClientConfig,
} from '@aws-sdk/client-cloudwatch';
import type { MetricDatum, MetricsSink } from '../core/common/ports';
import { translate } from './errors';

export const METRICS_NAMESPACE = 'Fleetbench';

export class CloudWatchMetricsSink implements MetricsSink {
  readonly client: CloudWatchClient;
  constructor(clientOrConfig: CloudWatchClient | CloudWatchClientConfig = {}) {
    this.client =
      clientOrConfig instanceof CloudWatchClient ? clientOrConfig : new CloudWatchClient(clientOrConfig);
  }

  async put(dimensions: Record<string, string>, data: MetricDatum[]): Promise<void> {
    const dims = Object.entries(dimensions).map(([Name, Value]) => ({ Name, Value }));
    try {
      for (let i = 0; i < data.length; i += 1000) {
        await this.client.send(
          new PutMetricDataCommand({
            Namespace: METRICS_NAMESPACE,
            MetricData: data.slice(i, i + 1000).map((d) => ({
              MetricName: d.name,
              Value: d.value,
              Unit: d.unit,
              Dimensions: dims,
            })),
          }),
        );
      }
    } catch (err) {
      throw translate('CloudWatch', 'PutMetricData', err);
    }
  }
}
