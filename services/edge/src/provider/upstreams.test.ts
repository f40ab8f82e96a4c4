import { ConfigError } from '@gateway/lib/config';
import { baseUrlVariable, resolveUpstreams } from './upstreams';

const providers = {
  openai: { base_url: 'https://api.openai.com/v1' },
  google: { base_url: 'https://generativelanguage.googleapis.com/v1beta/openai/' },
  'my-proxy': { base_url: 'https://proxy.example.com/openai/deployments/x?api-version=2024-10-21' },
};

describe('resolveUpstreams', () => {
  it('uses the catalog base URLs', () => {
    const upstreams = resolveUpstreams(providers);
    expect(upstreams.get('openai')).toEqual({
      provider: 'openai',
      origin: 'https://api.openai.com',
      chatCompletionsPath: '/v1/chat/completions',
      server: { address: 'api.openai.com', port: 443 },
    });
    expect(upstreams.get('google')?.chatCompletionsPath).toBe('/v1beta/openai/chat/completions');
    expect(upstreams.get('my-proxy')?.chatCompletionsPath).toBe('/openai/deployments/x/chat/completions?api-version=2024-10-21');
  });

  it('lets UPSTREAM_BASE_URL replace every base URL, and a provider variable win over it', () => {
    const upstreams = resolveUpstreams(providers, {
      UPSTREAM_BASE_URL: 'http://127.0.0.1:8090/v1',
      [baseUrlVariable('my-proxy')]: 'http://127.0.0.1:9000/v1',
    });
    expect(baseUrlVariable('my-proxy')).toBe('PROVIDER_BASE_URL_MY_PROXY');
    expect(upstreams.get('openai')?.origin).toBe('http://127.0.0.1:8090');
    expect(upstreams.get('google')?.chatCompletionsPath).toBe('/v1/chat/completions');
    expect(upstreams.get('my-proxy')?.origin).toBe('http://127.0.0.1:9000');
    expect(upstreams.get('my-proxy')?.server).toEqual({ address: '127.0.0.1', port: 9000 });
  });

  it('refuses base URLs that are not http(s) or that carry credentials, naming the variable', () => {
    expect(() => resolveUpstreams(providers, { PROVIDER_BASE_URL_OPENAI: 'ftp://x' })).toThrow(/PROVIDER_BASE_URL_OPENAI: must be an http or https URL/);
    expect(() => resolveUpstreams(providers, { UPSTREAM_BASE_URL: 'not a url' })).toThrow(ConfigError);
    let message = '';
    try {
      resolveUpstreams(providers, { UPSTREAM_BASE_URL: 'https://user:hunter2@proxy.example.com/v1' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/UPSTREAM_BASE_URL: must not carry credentials/);
    expect(message).not.toContain('hunter2');
  });
});
