import { commitDeadline } from './commit-deadline';

const RECEIVED = 1_000_000;

describe('commitDeadline', () => {
  it('gives a caller with only a deadline the first half of the time it had left', () => {
    expect(commitDeadline(RECEIVED + 250, RECEIVED)).toBe(RECEIVED + 125);
  });

  it('gives a caller with a commit window that window from the receipt', () => {
    expect(commitDeadline(RECEIVED + 2250, RECEIVED, 250)).toBe(RECEIVED + 250);
  });

  it('never lets a window run past half of what the deadline left (a call that arrived late)', () => {
    expect(commitDeadline(RECEIVED + 300, RECEIVED, 250)).toBe(RECEIVED + 150);
  });

  it('sets none for a call with neither', () => {
    expect(commitDeadline(Infinity, RECEIVED)).toBeNull();
    expect(commitDeadline(new Date(Number.NaN), RECEIVED)).toBeNull();
  });

  it('takes a window alone when the call has no deadline', () => {
    expect(commitDeadline(Infinity, RECEIVED, 250)).toBe(RECEIVED + 250);
  });
});
