import type { APIGatewayProxyEvent } from 'aws-lambda';

/** A REST proxy event for a POST to `path`, as API Gateway builds it behind the authorizer (`null`: no context). */
export function proxyEvent(
  path: string,
  body: string | null,
  authorizer: Record<string, unknown> | null,
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
    requestContext: { authorizer } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}
