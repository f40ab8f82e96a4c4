import { Metadata } from '@grpc/grpc-js';
import { ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { carriedGetter, carriedSetter, handlerContext, metadataStrings, toMetadata, type CarriedMetadata } from './carried-metadata';

const propagator = new W3CTraceContextPropagator();
const sent = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED };

describe('carried metadata', () => {
  it.each<[string, () => CarriedMetadata]>([
    ['plain strings', () => ({})],
    ['a Metadata', () => new Metadata()],
  ])('carries the trace context through %s', (_name, make) => {
    const carrier = make();
    propagator.inject(trace.setSpanContext(ROOT_CONTEXT, sent), carrier, carriedSetter);
    const received = trace.getSpanContext(propagator.extract(ROOT_CONTEXT, carrier, carriedGetter));
    expect(received).toEqual(expect.objectContaining({ ...sent, isRemote: true }));
  });

  it('gives a handler the Metadata of plain strings, made once, and a Metadata as it is', () => {
    const context = handlerContext({ 'x-service-request-id': 'abc123' }, 0);
    const first = context.metadata;
    expect(first.get('x-service-request-id')).toEqual(['abc123']);
    expect(context.metadata).toBe(first);
    const metadata = new Metadata();
    expect(handlerContext(metadata, 0).metadata).toBe(metadata);
  });

  it('keeps the string values of a Metadata and leaves out binary ones', () => {
    const metadata = new Metadata();
    metadata.set('mode', 'end');
    metadata.set('blob-bin', Buffer.from([1, 2]));
    expect(metadataStrings(metadata)).toEqual({ mode: 'end' });
    expect(toMetadata({ mode: 'end' }).get('mode')).toEqual(['end']);
  });
});
