"""Reference values for lib/core/regression/tdist.ts, computed with scipy (an independent implementation).

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install scipy
    /tmp/venv/bin/python test/oracle/regression/tdist_reference.py > test/unit/regression/fixtures/tdist-scipy.json
"""
import json

import scipy
from scipy import special, stats

cdf = []
for df in (1, 2, 3, 5, 10, 30, 98, 1000):
    for t in (-40.0, -6.5, -2.0, -0.3, 0.0, 0.7, 1.96, 3.1, 12.0):
        cdf.append({'t': t, 'df': df, 'cdf': float(stats.t.cdf(t, df)), 'twoSidedP': float(2 * stats.t.sf(abs(t), df))})

beta = []
for a, b, x in [(0.5, 0.5, 0.3), (2.0, 3.0, 0.4), (5.0, 0.5, 0.9), (24.0, 0.5, 0.05), (0.7, 9.0, 0.999),
                (100.0, 0.5, 0.98), (1.0, 1.0, 0.25), (15.5, 0.5, 0.5)]:
    beta.append({'a': a, 'b': b, 'x': x, 'value': float(special.betainc(a, b, x))})

quantile = []
for df in (1, 2, 4, 9, 20, 60):
    for p in (0.6, 0.9, 0.975, 0.99, 0.9995):
        quantile.append({'p': p, 'df': df, 't': float(stats.t.ppf(p, df))})

ttest = []
for m1, s1, n1, m2, s2, n2 in [(10.481666666666667, 0.2461, 6, 9.125, 0.0726, 4), (1.0, 0.5, 3, 1.2, 0.4, 7),
                               (100.0, 2.0, 25, 100.5, 2.5, 25), (5.0, 0.0, 1, 7.0, 1.0, 4)]:
    t, p = stats.ttest_ind_from_stats(m1, s1, n1, m2, s2, n2)
    ttest.append({'mean1': m1, 'std1': s1, 'n1': n1, 'mean2': m2, 'std2': s2, 'n2': n2, 't': float(t), 'p': float(p)})

print(json.dumps({'source': f'scipy {scipy.__version__} (scipy.stats.t, scipy.special.betainc, '
                            'scipy.stats.ttest_ind_from_stats)',
                  'cdf': cdf, 'beta': beta, 'quantile': quantile, 'ttest': ttest}, indent=1))
