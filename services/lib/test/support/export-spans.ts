/**
 * Starts telemetry as a service does, ends `argv[2]` spans at once, then
 * shuts telemetry down, which sends what is left: what a test's OTLP receiver
 * is sent from a real process (the exporter's HTTP transport cannot run
 * inside Jest's module sandbox).
 */
import { trace } from '@opentelemetry/api';
import { startTelemetry } from '../../src/telemetry';

const telemetry = startTelemetry({ serviceName: 'export-spans' });
const tracer = trace.getTracer('export-spans');
for (let index = 0; index < Number(process.argv[2]); index += 1) tracer.startSpan(`span ${index}`).end();
void telemetry.shutdown();
