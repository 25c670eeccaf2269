import { ProxyApiError } from './errors.ts';

/**
 * A channel proxy API call's query string (API Gateway's multi-value map, so a repeated parameter is seen) as one
 * value per name: an unknown or repeated parameter is a 400 naming it, so a filter is never silently ignored.
 * `call` names the call in the message ("the list", "the usage call").
 */
export function singleQueryValues(
  parameters: Readonly<Record<string, readonly string[] | undefined>> | null,
  allowed: readonly string[],
  call: string,
): Record<string, string> {
  const single: Record<string, string> = {};
  for (const [name, values] of Object.entries(parameters ?? {})) {
    if (!allowed.includes(name)) {
      throw new ProxyApiError(
        400,
        `Unknown query parameter ${JSON.stringify(name.slice(0, 40))}; ${call} takes ${allowed.join(', ')}`,
      );
    }
    if ((values?.length ?? 0) > 1) throw new ProxyApiError(400, `Query parameter ${name} is given more than once`);
    single[name] = values?.[0] ?? '';
  }
  return single;
}
