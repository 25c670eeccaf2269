/*
 * The relay API's error envelope (docs/relay.md, "Errors"): OpenAI's `{"error": {"message", "type", "param", "code"}}`,
 * which OpenAI's SDKs read into their APIError (status, message, type, code, param). The function's own answers and
 * API Gateway's gateway responses (shared/gateway-responses.ts) both use it.
 */

/** OpenAI's error types, as its API answers them. */
export type OpenAiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'server_error'
  | 'api_error';

export interface OpenAiErrorBody {
  error: { message: string; type: OpenAiErrorType; param: string | null; code: string | null };
}

/** The envelope's body for one error. */
export function openAiErrorBody(
  message: string,
  type: OpenAiErrorType,
  code: string | null = null,
  param: string | null = null,
): OpenAiErrorBody {
  return { error: { message, type, param, code } };
}

/** An error the relay's front door answers itself, with its HTTP status and OpenAI body. */
export class RelayHttpError extends Error {
  constructor(
    readonly httpStatus: number,
    message: string,
    readonly type: OpenAiErrorType,
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'RelayHttpError';
  }

  get body(): OpenAiErrorBody {
    return openAiErrorBody(this.message, this.type, this.code, this.param);
  }
}
