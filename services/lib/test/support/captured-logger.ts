import { Writable } from 'node:stream';
import { createLogger, type Logger, type LoggerOptions } from '../../src/logging';

/** A logger writing into memory, and every line it wrote so far. */
export function capturedLogger({ service = 'test', level = 'debug' }: Partial<Pick<LoggerOptions, 'service' | 'level'>> = {}): {
  logger: Logger;
  output: () => string;
  lines: () => Array<Record<string, unknown>>;
} {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ service, level, destination });
  const output = () => chunks.join('');
  return {
    logger,
    output,
    lines: () =>
      output()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
