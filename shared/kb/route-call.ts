import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { CallerContext } from '../http.ts';

/** One call of a function that serves several routes. */
export type RouteCall = (event: APIGatewayProxyEvent, caller: CallerContext) => Promise<unknown>;

/**
 * The call of the route an event came through, by `METHOD resource` (API Gateway's resource path, which the local
 * server sets too); a route the function does not serve is a wiring mistake (a 500).
 */
export function routeCall(calls: Readonly<Record<string, RouteCall>>, event: APIGatewayProxyEvent): RouteCall {
  const call = calls[`${event.httpMethod} ${event.resource}`];
  if (call === undefined) throw new Error(`no call for ${event.httpMethod} ${event.resource}`);
  return call;
}
