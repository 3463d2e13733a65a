import { Q, sum } from '../../../lib/core/cost/decimal';

describe('Q (exact decimal money)', () => {
  it('adds decimal fractions exactly where floating point does not', () => {
    expect(Q.of(0.1).add(0.2).cmp(Q.of('0.3'))).toBe(0);
    expect(Q.of(0.1).add(0.2).toNumber()).toBe(0.3);
    // a thousand cents are ten dollars exactly (summed as doubles they are 9.999999999999831)
    expect(sum(Array.from({ length: 1000 }, () => Q.of('0.01'))).cmp(10)).toBe(0);
    expect(sum(Array.from({ length: 1000 }, () => Q.of(0.01))).toCents()).toBe(1000n);
  });

  it('parses exponent notation and decimal strings to the same value', () => {
    expect(Q.of(1.25e-7).cmp(Q.of('0.000000125'))).toBe(0);
    expect(Q.of('6.5E+3').cmp(6500)).toBe(0);
    expect(Q.of('.5').cmp(Q.ratio(1, 2))).toBe(0);
    expect(Q.of(-0.25).cmp(Q.ratio(-1, 4))).toBe(0);
  });

  it('refuses what is not a finite decimal', () => {
    expect(() => Q.of(NaN)).toThrow(/finite/);
    expect(() => Q.of(Infinity)).toThrow(/finite/);
    expect(() => Q.of('1,5')).toThrow(/decimal/);
    expect(() => Q.of(1).div(0)).toThrow(/zero/);
  });

  it('rounds to cents half away from zero', () => {
    expect(Q.of('0.005').toCents()).toBe(1n);
    expect(Q.of('0.00499999').toCents()).toBe(0n);
    expect(Q.of('47438.1375').toCents()).toBe(4743814n);
    expect(Q.of('-0.005').toCents()).toBe(-1n);
    expect(Q.of('63266.983').toUsd()).toBe(63266.98);
  });

  it('ceil and floor are exact at integers and just above them', () => {
    expect(Q.ratio(1025, 1024).ceil()).toBe(2n);
    expect(Q.ratio(1024, 1024).ceil()).toBe(1n);
    expect(Q.ratio(-3, 2).ceil()).toBe(-1n);
    expect(Q.ratio(-3, 2).floor()).toBe(-2n);
    expect(Q.ratio(3, 2).floor()).toBe(1n);
  });

  it('sums a list', () => {
    expect(sum([Q.of('47450'), Q.of('4745'), Q.of('250')]).cmp(52445)).toBe(0);
    expect(sum([]).isZero()).toBe(true);
  });
});
