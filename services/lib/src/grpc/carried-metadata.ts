import { Metadata } from '@grpc/grpc-js';
import type { TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import type { CallContext } from './server';

/**
 * A call's metadata as it travels: grpc-js's Metadata on a unary call, plain
 * strings where lib carries the call itself (a call stream's envelope, a call
 * between the services of one process). The trace context is written into
 * and read from either as it is, and a handler is given a Metadata only when
 * it reads one (handlerContext): most never do, and making a Metadata for every
 * streamed call on each side, only to carry its trace context through it,
 * was most of what was left of lib's own time around a record
 * (docs/performance.md, "lib's own work around each streamed call").
 */
export type CarriedMetadata = Metadata | { [key: string]: string };

export const carriedSetter: TextMapSetter<CarriedMetadata> = {
  set: (carrier, key, value) => {
    if (carrier instanceof Metadata) carrier.set(key, value);
    else carrier[key] = value;
  },
};

export const carriedGetter: TextMapGetter<CarriedMetadata> = {
  get: (carrier, key) => (carrier instanceof Metadata ? carrier.get(key).map(String) : carrier[key]),
  keys: (carrier) => Object.keys(carrier instanceof Metadata ? carrier.getMap() : carrier),
};

/** The strings of a Metadata (binary values are not carried). */
export function metadataStrings(metadata: Metadata): { [key: string]: string } {
  const carried: { [key: string]: string } = {};
  for (const [key, value] of Object.entries(metadata.getMap())) if (typeof value === 'string') carried[key] = value;
  return carried;
}

export function toMetadata(carried: CarriedMetadata): Metadata {
  if (carried instanceof Metadata) return carried;
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(carried)) metadata.set(key, value);
  return metadata;
}

/** What a handler is given: its call's metadata as a Metadata, made on first reading. */
export function handlerContext(carried: CarriedMetadata, deadline: Date | number): CallContext {
  if (carried instanceof Metadata) return { metadata: carried, deadline };
  let metadata: Metadata | undefined;
  return {
    get metadata() {
      metadata ??= toMetadata(carried);
      return metadata;
    },
    deadline,
  };
}
