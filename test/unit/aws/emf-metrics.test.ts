/**
 * The EMF lines DetectRegressions' Regression metric becomes: the alarm (lib/constructs/monitoring.ts)
 * watches Fleetbench/Regression without dimensions, so the no-dimension put must be an empty
 * DimensionSet (the EMF specification: "A DimensionSet MAY be empty").
 */
import { EmfMetricsSink } from '../../../lib/aws/emf-metrics';

describe('EmfMetricsSink', () => {
  it('writes an empty dimension set for a put without dimensions, and the keys otherwise', async () => {
    const lines: string[] = [];
    const sink = new EmfMetricsSink(
      (l) => lines.push(l),
      () => 1_700_000_000_000,
    );
    await sink.put({}, [{ name: 'Regression', value: 1, unit: 'Count' }]);
    await sink.put({ Spec: 'nightly' }, [{ name: 'Regression', value: 0, unit: 'Count' }]);
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      {
        _aws: {
          Timestamp: 1_700_000_000_000,
          CloudWatchMetrics: [
            { Namespace: 'Fleetbench', Dimensions: [[]], Metrics: [{ Name: 'Regression', Unit: 'Count' }] },
          ],
        },
        Regression: 1,
      },
      {
        _aws: {
          Timestamp: 1_700_000_000_000,
          CloudWatchMetrics: [
            {
              Namespace: 'Fleetbench',
              Dimensions: [['Spec']],
              Metrics: [{ Name: 'Regression', Unit: 'Count' }],
            },
          ],
        },
        Spec: 'nightly',
        Regression: 0,
      },
    ]);
  });
});
