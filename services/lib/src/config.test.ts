import { z } from 'zod';
import { ConfigError, env, loadConfig } from './config';

const shape = {
  PORT: env.port(50051),
  DATABASE_URL: env.url(),
  REDIS_URL: env.url(),
  ACCESS_TOKEN_SECRET: env.secret(),
  LOG_LEVEL: env.logLevel(),
  KEY_ENVIRONMENT: env.keyEnvironment(),
  POOL_SIZE: env.positiveInt(10),
  OTEL_EXPORTER_OTLP_ENDPOINT: env.optionalUrl(),
  MODE: z.enum(['a', 'b']).default('a'),
};

const valid = {
  DATABASE_URL: 'postgres://auth:pw-in-url@127.0.0.1:5432/gateway',
  REDIS_URL: 'redis://127.0.0.1:6379',
  ACCESS_TOKEN_SECRET: 'x'.repeat(32),
};

function problemsOf(environment: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(shape, environment);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('parses and applies defaults', () => {
    expect(loadConfig(shape, { ...valid, PORT: '7000' })).toEqual({
      ...valid,
      PORT: 7000,
      LOG_LEVEL: 'info',
      KEY_ENVIRONMENT: 'test',
      POOL_SIZE: 10,
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      MODE: 'a',
    });
  });

  it('ignores variables outside the shape', () => {
    expect(loadConfig(shape, { ...valid, HOME: '/root' })).not.toHaveProperty('HOME');
  });

  it('names every missing variable at once', () => {
    const error = problemsOf({});
    expect(error.problems).toEqual(
      expect.arrayContaining([
        'DATABASE_URL: required but not set',
        'REDIS_URL: required but not set',
        'ACCESS_TOKEN_SECRET: required but not set',
      ]),
    );
    expect(error.problems).toHaveLength(3);
    expect(error.message).toContain('DATABASE_URL');
    expect(error.message).toContain('ACCESS_TOKEN_SECRET');
  });

  it('names a malformed variable and why, without printing its value', () => {
    const secrets = {
      ACCESS_TOKEN_SECRET: 'short-but-secret-Value',
      DATABASE_URL: 'not a url with hunter2 inside',
      PORT: 'port-hunter3',
      LOG_LEVEL: 'verbose-hunter4',
      POOL_SIZE: '-7',
    };
    const error = problemsOf({ ...valid, ...secrets });
    expect(error.problems.map((problem) => problem.split(':')[0]).sort()).toEqual(Object.keys(secrets).sort());
    expect(error.problems.find((problem) => problem.startsWith('ACCESS_TOKEN_SECRET'))).toContain('at least 32 characters');
    const printed = `${error.message}\n${JSON.stringify(error)}\n${String(error.stack)}`;
    for (const value of Object.values(secrets)) expect(printed).not.toContain(value);
    expect(printed).not.toContain('hunter');
    expect(printed).not.toContain('pw-in-url');
  });

  it('rejects a port outside 0-65535', () => {
    expect(problemsOf({ ...valid, PORT: '70000' }).problems).toEqual([expect.stringMatching(/^PORT: /)]);
  });
});
