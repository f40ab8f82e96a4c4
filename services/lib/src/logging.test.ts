import { randomBytes } from 'node:crypto';
import { TraceFlags, trace } from '@opentelemetry/api';
import { CREDENTIAL_PATTERNS, maskCredentials } from './logging';
import { capturedLogger } from '../test/support/captured-logger';

const apiKey = `svc_live_${randomBytes(4).toString('hex')}${randomBytes(24).toString('hex')}`;
const credentials = {
  apiKey,
  gatewayToken: `gwt_${randomBytes(24).toString('hex')}`,
  agentSecret: `pas_${randomBytes(24).toString('hex')}`,
  refreshToken: `rt_${randomBytes(32).toString('hex')}`,
};

describe('createLogger', () => {
  afterEach(() => jest.restoreAllMocks());

  it('writes JSON lines with the level label, the service and the message', () => {
    const { logger, lines } = capturedLogger();
    logger.info({ port: 50051 }, 'listening');
    expect(lines()).toEqual([expect.objectContaining({ level: 'info', service: 'test', port: 50051, msg: 'listening' })]);
    expect(lines()[0]?.time).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/));
  });

  it('puts the active trace id and span id on the line', () => {
    const spanContext = { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex'), traceFlags: TraceFlags.SAMPLED };
    jest.spyOn(trace, 'getActiveSpan').mockReturnValue(trace.wrapSpanContext(spanContext));
    const { logger, lines } = capturedLogger();
    logger.info('inside a span');
    expect(lines()[0]).toMatchObject({ trace_id: spanContext.traceId, span_id: spanContext.spanId });
  });

  it.each(Object.entries(credentials))('masks a %s inside the message and its format arguments', (_kind, credential) => {
    const { logger, output } = capturedLogger();
    logger.warn(`rejected credential ${credential} from 127.0.0.1`);
    logger.warn('rejected credential %s', credential);
    logger.warn({ reason: 'unknown' }, `Bearer ${credential}`);
    expect(output()).not.toContain(credential);
    expect(output()).toContain('[REDACTED]');
  });

  it('redacts the secret fields, at the top level and one level down', () => {
    const { logger, output, lines } = capturedLogger();
    const opaque = randomBytes(20).toString('base64url');
    logger.info({
      authorization: `Bearer ${apiKey}`,
      api_key: apiKey,
      password: opaque,
      refresh_token: credentials.refreshToken,
      body: { password: opaque, aiApiKey: `sk-${opaque}`, token: opaque },
      skill: { config: { discord_token: opaque } },
      req: { headers: { authorization: `Bearer ${apiKey}`, cookie: `service-access-token=${opaque}` } },
    });
    expect(output()).not.toContain(apiKey);
    expect(output()).not.toContain(credentials.refreshToken);
    expect(output()).not.toContain(opaque);
    expect(lines()[0]).toMatchObject({
      authorization: '[REDACTED]',
      api_key: '[REDACTED]',
      password: '[REDACTED]',
      body: { password: '[REDACTED]', aiApiKey: '[REDACTED]', token: '[REDACTED]' },
      skill: { config: '[REDACTED]' },
      req: { headers: { authorization: '[REDACTED]', cookie: '[REDACTED]' } },
    });
  });

  it("censors an error's secret fields, a response's set-cookie and a child's bindings, and never changes the logged objects", () => {
    const { logger, lines } = capturedLogger();
    const opaque = randomBytes(20).toString('base64url');
    const error = Object.assign(new Error('upstream refused'), { status: 401, config: { url: '/v1', key: opaque }, token: opaque });
    const logged = { err: error, res: { statusCode: 200, headers: { 'set-cookie': `session=${opaque}`, 'content-type': 'text/plain' } }, body: { password: opaque } };
    logger.warn(logged, 'call failed');
    logger.child({ secret: opaque, component: 'auth' }).info('child');
    logger.child({ component: 'ledger' }).child({ token: opaque, role: 'writer' }).info('grandchild');
    expect(lines()[0]).toMatchObject({
      err: { type: 'Error', message: 'upstream refused', status: 401, config: '[REDACTED]', token: '[REDACTED]' },
      res: { statusCode: 200, headers: { 'set-cookie': '[REDACTED]', 'content-type': 'text/plain' } },
      body: { password: '[REDACTED]' },
    });
    expect(lines()[1]).toMatchObject({ secret: '[REDACTED]', component: 'auth', msg: 'child' });
    expect(lines()[2]).toMatchObject({ component: 'ledger', token: '[REDACTED]', role: 'writer', msg: 'grandchild' });
    expect(JSON.stringify(lines())).not.toContain(opaque);
    expect(logged.body.password).toBe(opaque);
    expect(logged.res.headers['set-cookie']).toBe(`session=${opaque}`);
    expect(error.token).toBe(opaque);
  });

  it('masks a credential anywhere else in the line: nested fields, arrays, errors, child loggers', () => {
    const { logger, output } = capturedLogger();
    logger.info({ detail: { note: `presented ${apiKey}` }, seen: [credentials.gatewayToken] }, 'nested');
    logger.error({ err: new Error(`lookup failed for ${apiKey}`) }, 'rpc failed');
    logger.error(new Error(`first argument ${credentials.agentSecret}`));
    logger.child({ request: credentials.refreshToken }).info(`child ${apiKey}`);
    expect(output()).not.toContain(apiKey);
    expect(output()).not.toContain(credentials.gatewayToken);
    expect(output()).not.toContain(credentials.agentSecret);
    expect(output()).not.toContain(credentials.refreshToken);
    expect(output().match(/\[REDACTED\]/g)?.length).toBeGreaterThanOrEqual(6);
  });

  it('keeps the non-secret 17-character prefix readable', () => {
    const { logger, output } = capturedLogger();
    logger.info({ prefix: apiKey.slice(0, 17) }, 'key revoked');
    expect(output()).toContain(apiKey.slice(0, 17));
  });
});

/** Shapes of credentials other systems issue, which the agent's skills and BYOK keys carry. */
const foreignCredentials = {
  discordToken: `MTA${randomBytes(16).toString('base64url').slice(0, 21)}.${randomBytes(6).toString('base64url').slice(0, 6)}.${randomBytes(30).toString('base64url').slice(0, 38)}`,
  telegramToken: `123456789:${randomBytes(30).toString('base64url').slice(0, 35)}`,
  slackToken: `xoxb-${randomBytes(8).toString('hex')}-${randomBytes(12).toString('hex')}`,
  providerKey: `sk-proj-${randomBytes(24).toString('base64url')}`,
};

describe('maskCredentials', () => {
  it.each(Object.entries(foreignCredentials))('masks a %s, a skill credential or provider key shape', (_kind, credential) => {
    expect(maskCredentials(`stored ${credential} for the skill`)).toBe('stored [REDACTED] for the skill');
    const { logger, output } = capturedLogger();
    logger.info({ detail: `value ${credential}` }, 'nested');
    expect(output()).not.toContain(credential);
  });

  it('masks a skill credential that ends in a hyphen', () => {
    const telegram = `123456789:${'a'.repeat(34)}-`;
    const discord = `MTA${'b'.repeat(21)}.${'c'.repeat(6)}.${'d'.repeat(37)}-`;
    expect(maskCredentials(`stored ${telegram} and ${discord}.`)).toBe('stored [REDACTED] and [REDACTED].');
  });

  it('redacts skill credential fields wherever they are named', () => {
    const { logger, lines } = capturedLogger();
    logger.info({ telegram_bot_token: 'opaque-1', credentials: { slack_signing_secret: 'opaque-2', discord_app_id: 'opaque-3' } });
    expect(lines()[0]).toMatchObject({ telegram_bot_token: '[REDACTED]', credentials: { slack_signing_secret: '[REDACTED]', discord_app_id: '[REDACTED]' } });
  });

  it('leaves trace ids, UUIDs and timestamps alone', () => {
    const text = `trace ${randomBytes(16).toString('hex')} agent ${'4f1c2b7a-9d3e-4a5b-8c6d-7e8f9a0b1c2d'} at 2026-03-10T12:00:00.000Z`;
    expect(maskCredentials(text)).toBe(text);
  });

  it('masks every issued credential shape and leaves other text alone', () => {
    const text = `a ${Object.values(credentials).join(' b ')} c`;
    expect(maskCredentials(text)).toBe('a [REDACTED] b [REDACTED] b [REDACTED] b [REDACTED] c');
    expect(maskCredentials('svc_test_short and sk-not-ours')).toBe('svc_test_short and sk-not-ours');
  });

  it('has one pattern per credential kind', () => {
    for (const credential of Object.values(credentials)) {
      expect(CREDENTIAL_PATTERNS.filter((pattern) => new RegExp(pattern.source).test(credential))).toHaveLength(1);
    }
  });
});
