import { Histogram, nextDown } from '../../../lib/core/hdr/histogram';

// Layout facts from HdrHistogram's documentation for 3 significant digits and lowest value 1:
// sub-buckets of 2048, values 0..2047 recorded exactly, then each doubling halves the resolution.
describe('Histogram layout (lowest 1, 3 significant digits)', () => {
  const h = new Histogram();

  it('records values below 2048 exactly', () => {
    for (const v of [0, 1, 2, 1000, 2047]) {
      expect(h.valueFromIndex(h.indexOf(v))).toBe(v);
      expect(h.highestEquivalentAtIndex(h.indexOf(v))).toBe(v);
    }
  });

  it('uses ranges of 2 between 2048 and 4095, 4 between 4096 and 8191', () => {
    expect(h.indexOf(2048)).toBe(h.indexOf(2049));
    expect(h.indexOf(2050)).toBe(h.indexOf(2049) + 1);
    expect(h.valueFromIndex(h.indexOf(2049))).toBe(2048);
    expect(h.highestEquivalentAtIndex(h.indexOf(2048))).toBe(2049);
    expect(h.indexOf(4096)).toBe(h.indexOf(4099));
    expect(h.highestEquivalentAtIndex(h.indexOf(4097))).toBe(4099);
    expect(h.medianEquivalentAtIndex(h.indexOf(4097))).toBe(4098);
  });

  it('keeps relative error under 0.1% up to large values', () => {
    for (const v of [12345, 999_999, 123_456_789, 2 ** 40 + 12345]) {
      const i = h.indexOf(v);
      expect(h.valueFromIndex(i)).toBeLessThanOrEqual(v);
      expect(h.highestEquivalentAtIndex(i)).toBeGreaterThanOrEqual(v);
      expect(h.highestEquivalentAtIndex(i) - h.valueFromIndex(i)).toBeLessThan(v / 1000);
    }
  });
});

describe('Histogram statistics', () => {
  it('follows getValueAtPercentile on a 1..10000 ramp (every value once)', () => {
    const h = new Histogram();
    for (let v = 1; v <= 10_000; v++) h.recordValue(v);
    expect(h.totalCount).toBe(10_000);
    expect(h.min).toBe(1);
    expect(h.max).toBe(h.highestEquivalentAtIndex(h.indexOf(10_000)));
    // p50: 5000th value = 5000, range of 4 above 4096: 5000..5003
    expect(h.valueAtPercentile(50)).toBe(5003);
    // p0 gives the lowest equivalent value of the first bucket
    expect(h.valueAtPercentile(0)).toBe(1);
    expect(h.valueAtPercentile(100)).toBe(h.max);
  });

  it('reports min 0 when 0 was recorded and an empty histogram as zeros', () => {
    const e = new Histogram();
    expect([e.min, e.max, e.mean, e.valueAtPercentile(99)]).toEqual([0, 0, 0, 0]);
    e.recordValue(0);
    e.recordValue(7, 3);
    expect(e.min).toBe(0);
    expect(e.max).toBe(7);
    expect(e.mean).toBe(21 / 4);
  });

  it('adds histograms count by count', () => {
    const a = new Histogram();
    const b = new Histogram();
    a.recordValue(10, 2);
    b.recordValue(10);
    b.recordValue(100_000);
    a.add(b);
    expect(a.totalCount).toBe(4);
    expect(a.countAtIndex(a.indexOf(10))).toBe(3);
    expect(a.max).toBe(a.highestEquivalentAtIndex(a.indexOf(100_000)));
  });
});

describe('nextDown (Math.nextAfter(x, -Infinity))', () => {
  it('steps one ulp down', () => {
    expect(nextDown(1)).toBe(1 - Number.EPSILON / 2);
    expect(nextDown(100)).toBeLessThan(100);
    expect(nextDown(100)).toBeGreaterThan(100 - 1e-12);
    expect(nextDown(0)).toBe(-Number.MIN_VALUE);
    expect(nextDown(-1)).toBe(-1 - Number.EPSILON);
  });
});
