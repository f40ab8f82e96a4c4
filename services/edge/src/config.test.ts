import { ConfigError, loadConfig } from '@gateway/lib/config';
import { leaseConfigShape, leaseSettingsFrom } from './config';

describe("edge's lease settings", () => {
  it('defaults to a $1.00 and 100-request slice, given back after a second idle', () => {
    expect(leaseSettingsFrom(loadConfig(leaseConfigShape, {}))).toMatchObject({ sliceMicros: 1_000_000n, sliceRequests: 100n, safetyMarginMs: 1000 });
  });

  it('reads the spend slice as a USD amount, to the micro-dollar', () => {
    expect(loadConfig(leaseConfigShape, { EDGE_LEASE_SLICE_USD: '2.500001' }).EDGE_LEASE_SLICE_USD).toBe(2_500_001n);
  });

  it('refuses a slice that is not a USD amount, naming the variable', () => {
    for (const value of ['one dollar', '-1', '0.0000001']) {
      expect(() => loadConfig(leaseConfigShape, { EDGE_LEASE_SLICE_USD: value })).toThrow(ConfigError);
      expect(() => loadConfig(leaseConfigShape, { EDGE_LEASE_SLICE_USD: value })).toThrow(/EDGE_LEASE_SLICE_USD/);
    }
  });
});
