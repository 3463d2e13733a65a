"""Reference change points for test/unit/regression/hunter.test.ts, from Apache Otava (the continuation of
DataStax Hunter), an independent implementation of the same algorithm.

    python3 -m venv /tmp/otava && /tmp/otava/bin/pip install apache-otava==0.8.0
    /tmp/otava/bin/python test/oracle/regression/otava_reference.py > test/unit/regression/fixtures/otava-cases.json

The synthetic series come from Python's seeded `random`, so the values are written into the fixture.
"""
import json
import random

from otava.analysis import compute_change_points

rng = random.Random(20260901)


def noise(n, mu, sd):
    return [round(rng.gauss(mu, sd), 3) for _ in range(n)]


cases = []


def case(name, values, **opts):
    cases.append({'name': name, 'values': values, 'options': opts})


# DataStax Hunter's README example (tests/resources/sample.csv, `hunter analyze local.sample`)
case('hunter-readme-metric1', [154023, 138455, 143112, 149190, 132098, 151344, 155145, 148889, 149466, 148209],
     minMagnitude=0.0)
case('hunter-readme-metric2', [10.43, 10.23, 10.29, 10.91, 10.34, 10.69, 9.23, 9.11, 9.13, 9.03], minMagnitude=0.0)
# Hunter's tests/analysis_test.py test_change_point_detection series
case('hunter-test-series1', [1.02, 0.95, 0.99, 1.00, 1.12, 0.90, 0.50, 0.51, 0.48, 0.48, 0.55], minMagnitude=0.0)
case('hunter-test-series2', [2.02, 2.03, 2.01, 2.04, 1.82, 1.85, 1.79, 1.81, 1.80, 1.76, 1.78], minMagnitude=0.0)
# synthetic
case('step', noise(40, 100, 3) + noise(40, 112, 3))
case('noise', noise(120, 100, 3))
case('two-steps', noise(30, 50, 1) + noise(30, 58, 1) + noise(30, 52, 1))
case('drift', [round(100 + 0.4 * i + rng.gauss(0, 2), 3) for i in range(120)])
case('long-many-steps', noise(45, 10, 0.3) + noise(45, 12, 0.3) + noise(45, 11, 0.3) + noise(45, 14, 0.3),
     window=30)
case('small-step-small-window', noise(20, 200, 5) + noise(20, 215, 5), window=10, maxPValue=0.01)
case('tiny-magnitude', noise(40, 1000, 1) + noise(40, 1010, 1), minMagnitude=0.05)

out = []
for c in cases:
    o = c['options']
    try:
        cps, _ = compute_change_points([float(v) for v in c['values']], window_len=o.get('window', 50),
                                       max_pvalue=o.get('maxPValue', 0.001), min_magnitude=o.get('minMagnitude', 0.05))
    except ValueError as e:
        import sys
        print(f"{c['name']}: otava failed: {e!r}", file=sys.stderr)
        continue
    out.append({**c, 'expected': [{'index': int(cp.index), 'meanBefore': float(cp.stats.mean_1),
                                   'meanAfter': float(cp.stats.mean_2), 'pValue': float(cp.stats.pvalue)}
                                  for cp in cps]})
print(json.dumps({'source': 'apache-otava 0.8.0 otava.analysis.compute_change_points', 'cases': out}, indent=1))
