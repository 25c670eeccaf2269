import type { APIGatewayProxyEvent } from 'aws-lambda';
import { isHostName, isIPv4Address, isIPv6Address, unbracket } from '#shared/host-name';

// `name[:port]`, where the name may be a bracketed IPv6 address.
const HOST_HEADER = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+)(?::\d{1,5})?$/;
const PATH_PREFIX = /^(?:\/[A-Za-z0-9._~-]+)*$/;

/** A Host header value: a host name (the project's one rule), an IPv4 address or a bracketed IPv6 address, and an optional port. */
function isHostHeader(value: string): boolean {
  const name = HOST_HEADER.exec(value)?.[1];
  if (!name) return false;
  return isHostName(name) || isIPv4Address(name) || (name.startsWith('[') && isIPv6Address(unbracket(name)));
}

const header = (event: APIGatewayProxyEvent, name: string): string | undefined =>
  Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];

/**
 * The base URL the caller reached this API under: scheme and host of the request, plus what precedes
 * the route in the request path (the stage, on an execute-api host). Undefined when anything looks off,
 * so a forged Host header can never put arbitrary text into the document.
 */
export function requestBaseUrl(event: APIGatewayProxyEvent): string | undefined {
  const host = header(event, 'host');
  const proto = header(event, 'x-forwarded-proto') ?? 'https';
  const fullPath = event.requestContext?.path ?? event.path;
  if (!host || !isHostHeader(host) || (proto !== 'https' && proto !== 'http')) return undefined;
  if (!fullPath.endsWith(event.path)) return undefined;
  const prefix = fullPath.slice(0, fullPath.length - event.path.length);
  if (!PATH_PREFIX.test(prefix)) return undefined;
  return `${proto}://${host}${prefix}`;
}
