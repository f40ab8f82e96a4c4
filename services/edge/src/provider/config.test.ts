import { loadConfig } from '@gateway/lib/config';
import { DEFAULT_PROVIDER_TIMEOUTS } from './client';
import { providerConfigShape, providerTimeoutsFrom } from './config';

describe('provider config', () => {
  it('defaults the timeouts and reads overrides', () => {
    expect(providerTimeoutsFrom(loadConfig(providerConfigShape, {}))).toEqual(DEFAULT_PROVIDER_TIMEOUTS);
    expect(providerTimeoutsFrom(loadConfig(providerConfigShape, { PROVIDER_TIMEOUT_MS: '1500' })).requestMs).toBe(1500);
  });

  it('names a bad variable', () => {
    expect(() => loadConfig(providerConfigShape, { PROVIDER_STREAM_IDLE_TIMEOUT_MS: 'soon' })).toThrow(/PROVIDER_STREAM_IDLE_TIMEOUT_MS/);
  });
});
