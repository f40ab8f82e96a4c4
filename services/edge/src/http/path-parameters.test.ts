import { undecodableParameter } from './path-parameters';

describe('a path parameter that is not valid percent-encoding', () => {
  const templates = ['/api/v1/orgs/:org/keys', '/api/v1/orgs/:org/keys/:id', '/api/v1/orgs/:org/keys/:id/revoke'];

  it('is named by the route template the raw path matches', () => {
    expect(undecodableParameter(templates, '/api/v1/orgs/%ff%fe/keys')).toBe('org');
    expect(undecodableParameter(templates, '/api/v1/orgs/3f1c/keys/%ff%fe/revoke')).toBe('id');
  });

  it('is not found where no template matches or every parameter decodes', () => {
    expect(undecodableParameter(templates, '/api/v1/other/%ff%fe')).toBeUndefined();
    expect(undecodableParameter(templates, '/api/v1/orgs/%41/keys')).toBeUndefined();
  });
});
