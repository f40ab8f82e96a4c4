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
