import { InvalidRequest } from './chat/request';
import { planRequest, type InjectionSettings } from './failures';

const settings: InjectionSettings = { latencyMs: 10, latencyJitterMs: 0, failureRate: 0, random: () => 0.5 };

describe('planRequest', () => {
  it('reads headers before the directive', () => {
    const plan = planRequest({ 'x-simulator-fail': '503' }, '[simulator fail=429 latency-ms=7]', settings);
    expect(plan).toEqual({ latencyMs: 7, failure: { kind: 'status', status: 503, retryAfterSeconds: 2 } });
  });

  it('reads the directive', () => {
    expect(planRequest({}, 'x [simulator fail=429, retry-after=11] y', settings).failure).toEqual({ kind: 'status', status: 429, retryAfterSeconds: 11 });
    expect(planRequest({}, '[simulator fail=reset]', settings).failure).toEqual({ kind: 'reset' });
  });

  it('applies latency with jitter, and FAILURE_RATE', () => {
    expect(planRequest({}, '', { ...settings, latencyJitterMs: 20 }).latencyMs).toBe(20);
    expect(planRequest({}, '', { ...settings, failureRate: 0.6 }).failure).toEqual({ kind: 'status', status: 500, retryAfterSeconds: 2 });
    expect(planRequest({}, '', { ...settings, failureRate: 0.4 }).failure).toBeUndefined();
  });

  it('refuses values it does not know', () => {
    expect(() => planRequest({ 'x-simulator-fail': '200' }, '', settings)).toThrow(InvalidRequest);
    expect(() => planRequest({ 'x-simulator-latency-ms': '-1' }, '', settings)).toThrow(InvalidRequest);
  });
});
