import { afterAll, describe, expect, it } from 'vitest';
import { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS } from '#shared/cors';
import { APIS, type ApiName } from '#shared/routes';
import { logicalId, removeTempDirs, synthStack } from './synth.ts';

// shared/cors.ts: the knowledge-base API answers cross-origin requests as FastGPT does; the channel proxy API never.

afterAll(removeTempDirs);

type Json = Record<string, unknown>;
const { stack, template } = synthStack();
const apiId = (api: ApiName) => logicalId(stack, stack.apis[api].api);
const resources = (type: string) => Object.values(template.findResources(type)).map((r) => r.Properties as Json);
const preflights = (api: ApiName) =>
  resources('AWS::ApiGateway::Method').filter(
    (m) => m.HttpMethod === 'OPTIONS' && (m.RestApiId as Json).Ref === apiId(api),
  );

describe('CORS of the knowledge-base API (FastGPT: packages/service/common/middle/cors.ts)', () => {
  it('answers the preflight of each of its routes from a mock integration, without an authorizer, 200 with fixed headers', () => {
    const paths = new Set(APIS.dataset.routes.map((r) => r.path));

    const methods = preflights('dataset');

    expect(methods).toHaveLength(paths.size);
    for (const method of methods) {
      expect(method).toMatchObject({ AuthorizationType: 'NONE', Integration: { Type: 'MOCK' } });
      expect(method.AuthorizerId).toBeUndefined();
      const [response] = (method.Integration as Json).IntegrationResponses as Json[];
      expect(response).toMatchObject({
        StatusCode: '200',
        ResponseParameters: {
          'method.response.header.Access-Control-Allow-Origin': "'*'",
          'method.response.header.Access-Control-Allow-Methods': `'${CORS_ALLOW_METHODS.join(',')}'`,
          'method.response.header.Access-Control-Allow-Headers': `'${CORS_ALLOW_HEADERS.join(',')}'`,
        },
      });
      expect(JSON.stringify(response)).not.toContain('Allow-Credentials');
    }
  });

  it("lets a page read the gateway's own errors (401, 404, 429, ...): every gateway response allows any origin", () => {
    const responses = resources('AWS::ApiGateway::GatewayResponse').filter(
      (r) => (r.RestApiId as Json).Ref === apiId('dataset'),
    );

    expect(responses.length).toBeGreaterThan(0);
    for (const response of responses) {
      expect(response.ResponseParameters).toEqual({ 'gatewayresponse.header.Access-Control-Allow-Origin': "'*'" });
    }
  });
});

describe('the channel proxy API refuses cross-origin use', () => {
  it('has no OPTIONS method and no CORS header in its gateway responses', () => {
    const responses = resources('AWS::ApiGateway::GatewayResponse').filter(
      (r) => (r.RestApiId as Json).Ref === apiId('proxy'),
    );

    expect(preflights('proxy')).toEqual([]);
    expect(responses.length).toBeGreaterThan(0);
    for (const response of responses) expect(JSON.stringify(response)).not.toContain('Access-Control');
  });
});
