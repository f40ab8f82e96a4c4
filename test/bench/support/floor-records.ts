import type { ServiceDefinition } from '@grpc/grpc-js';
import { rawBytesMethod } from './echo-service';

/**
 * The floor's record stream: one bidirectional method whose messages are raw
 * bytes (a record out, its answer back), no protobuf, as ECHO_SERVICE is for
 * a unary call.
 */
export const FLOOR_RECORDS_SERVICE: ServiceDefinition = {
  records: rawBytesMethod('/bench.floor.v1.FloorRecords/Records', true),
};

/**
 * The floor ledger's one Redis script: the record's cost added to its
 * organization's counter and the record appended to a stream, its
 * durability. The stream is capped, as the ledger's writer empties its own:
 * a long run must not fill Redis.
 * KEYS[1] the counter hash, KEYS[2] the stream; ARGV[1] the cost, ARGV[2] the record.
 */
export const FLOOR_SETTLE_SCRIPT = `
local spent = redis.call('HINCRBY', KEYS[1], 'spent', ARGV[1])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', '10000', '*', 'record', ARGV[2])
return spent`;

/** A record as the floor's edge sends it: the answer names the same id. */
export interface FloorRecord {
  id: number;
  organization: string;
  costMicros: number;
  record: string;
}

export interface FloorAnswer {
  id: number;
  spentMicros: number;
}
