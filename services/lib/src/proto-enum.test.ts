import { ServerRegion, SessionCategory } from '@gateway/proto/gen/gateway/agent/v1/agent';
import { protoEnumNames } from './proto-enum';

describe('protoEnumNames', () => {
  const regions = protoEnumNames<ServerRegion>(ServerRegion, 'SERVER_REGION_');

  it('names the values as clients write them, without the zero value', () => {
    expect(regions.names).toEqual(['us-east', 'us-west', 'eu-central', 'eu-north', 'ap-south']);
    expect(protoEnumNames(SessionCategory, 'SESSION_CATEGORY_').names[0]).toBe('general');
  });

  it('maps names to values and back; the zero and unrecognized values have no name', () => {
    expect(regions.valueOf('eu-north')).toBe(ServerRegion.SERVER_REGION_EU_NORTH);
    expect(regions.nameOf(ServerRegion.SERVER_REGION_AP_SOUTH)).toBe('ap-south');
    expect(regions.nameOf(ServerRegion.SERVER_REGION_UNSPECIFIED)).toBeUndefined();
    expect(regions.nameOf(ServerRegion.UNRECOGNIZED)).toBeUndefined();
    expect(() => regions.valueOf('mars')).toThrow(RangeError);
  });
});
