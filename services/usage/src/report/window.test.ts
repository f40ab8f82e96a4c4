import { usageWindow } from './window';

describe('usageWindow', () => {
  it('is the last N UTC days, today included, from 00:00 UTC to the moment of reading', () => {
    const now = new Date('2026-03-01T10:15:00.000Z');
    expect(usageWindow(7, now)).toEqual({
      from: new Date('2026-02-23T00:00:00.000Z'),
      to: now,
      days: ['2026-02-23', '2026-02-24', '2026-02-25', '2026-02-26', '2026-02-27', '2026-02-28', '2026-03-01'],
    });
  });

  it('counts UTC days whatever the time of day, leap days included', () => {
    const justBeforeMidnight = usageWindow(14, new Date('2024-03-05T23:59:59.999Z'));
    expect(justBeforeMidnight.from).toEqual(new Date('2024-02-21T00:00:00.000Z'));
    expect(justBeforeMidnight.days).toContain('2024-02-29');
    expect(justBeforeMidnight.days).toHaveLength(14);
    const atMidnight = usageWindow(14, new Date('2024-03-06T00:00:00.000Z'));
    expect(atMidnight.from).toEqual(new Date('2024-02-22T00:00:00.000Z'));
    expect(atMidnight.days.at(-1)).toBe('2024-03-06');
  });

  it.each([7, 14, 30, 90] as const)('lists %i consecutive days ending today', (rangeDays) => {
    const { from, days } = usageWindow(rangeDays, new Date('2026-01-10T08:00:00.000Z'));
    expect(days).toHaveLength(rangeDays);
    expect(days[0]).toBe(from.toISOString().slice(0, 10));
    expect(days.at(-1)).toBe('2026-01-10');
    days.slice(1).forEach((day, index) => expect(Date.parse(day) - Date.parse(days[index] ?? '')).toBe(86_400_000));
  });
});
