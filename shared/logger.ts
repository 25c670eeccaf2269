import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';

/** A Powertools logger for one function. Never pass it a token, key, DSN or raw event. */
export function createLogger(serviceName: string, logLevel = process.env.LOG_LEVEL ?? 'INFO'): Logger {
  return new Logger({ serviceName, logLevel: logLevel.toUpperCase() as 'INFO' });
}

/** A handler as Lambda calls it: the event and the invocation's context (the local server passes none). */
export type LambdaHandler<E, R> = (event: E, context?: Context) => Promise<R>;

/**
 * Every function's handler goes through this: each line `logger` writes during the invocation, from the
 * handler or from the core it was handed to, carries the Lambda request id (`function_request_id`), the
 * cold-start flag (`cold_start`, true on the first invocation of an execution environment) and the
 * function's name, version and memory (Powertools' `addContext`). Nothing of the event is logged.
 */
export function withLambdaContext<E, R>(logger: Logger, handler: (event: E) => Promise<R>): LambdaHandler<E, R> {
  return (event, context) => {
    if (context) logger.addContext(context);
    return handler(event);
  };
}
