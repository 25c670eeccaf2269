import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * A REST proxy event for a POST to `path`, as API Gateway builds it behind the authorizer (`null`: no context), from
 * `sourceIp` when given.
 */
export function proxyEvent(
  path: string,
  body: string | null,
  authorizer: object | null,
  sourceIp?: string,
): APIGatewayProxyEvent {
  return {
    body,
    isBase64Encoded: false,
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    httpMethod: 'POST',
    path,
    resource: path,
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: {
      authorizer,
      ...(sourceIp === undefined ? {} : { identity: { sourceIp } }),
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}
