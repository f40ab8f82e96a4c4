import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logging';

/** A logger writing into memory, and every line it wrote so far. */
export function capturedLogger(): { logger: Logger; output: () => string; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ service: 'test', level: 'debug', destination });
  const output = () => chunks.join('');
  return {
    logger,
    output,
    lines: () => output().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
