import { isPeriodKey, periodDate, periodFromKey, periodOf, secondsUntilReset } from './period';

describe('periodOf', () => {
  it('is the UTC calendar month of the instant', () => {
    const period = periodOf(new Date('2025-03-17T12:34:56.789Z'));
    expect(period.key).toBe('2025-03');
    expect(period.start.toISOString()).toBe('2025-03-01T00:00:00.000Z');
    expect(period.resetsAt.toISOString()).toBe('2025-04-01T00:00:00.000Z');
    expect(periodDate(period)).toBe('2025-03-01');
  });

  it('rolls over the year in December', () => {
    const period = periodOf(new Date('2024-12-31T23:59:59.999Z'));
    expect(period.key).toBe('2024-12');
    expect(period.resetsAt.toISOString()).toBe('2025-01-01T00:00:00.000Z');
  });

  it('starts a new period at the first instant of the month', () => {
    expect(periodOf(new Date('2025-02-01T00:00:00.000Z')).key).toBe('2025-02');
    expect(periodOf(new Date('2025-01-31T23:59:59.999Z')).key).toBe('2025-01');
  });

  it('ignores the local time zone of the process', () => {
    // 23:30 UTC on the last day is still that month, wherever the process runs.
    expect(periodOf(new Date('2025-06-30T23:30:00Z')).key).toBe('2025-06');
  });
});

describe('periodFromKey', () => {
  it('gives back the period of its key', () => {
    const period = periodFromKey('2024-02');
    expect(period.start.toISOString()).toBe('2024-02-01T00:00:00.000Z');
    expect(period.resetsAt.toISOString()).toBe('2024-03-01T00:00:00.000Z');
  });

  it.each(['2024-13', '2024-00', '24-01', '2024-1', 'x'])('rejects %s', (key) => {
    expect(isPeriodKey(key)).toBe(false);
    expect(() => periodFromKey(key)).toThrow(RangeError);
  });
});

describe('secondsUntilReset', () => {
  const march = periodFromKey('2025-03');

  it('rounds a partial second up', () => {
    expect(secondsUntilReset(march, new Date('2025-03-31T23:59:58.001Z'))).toBe(2);
    expect(secondsUntilReset(march, new Date('2025-03-31T23:59:58.000Z'))).toBe(2);
  });

  it('counts the whole rest of the month', () => {
    expect(secondsUntilReset(march, new Date('2025-03-01T00:00:00.000Z'))).toBe(31 * 24 * 3600);
  });

  it('never answers less than one second', () => {
    expect(secondsUntilReset(march, new Date('2025-04-01T00:00:00.000Z'))).toBe(1);
  });
});
