import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';

/** A Powertools logger for one function. Never pass it a token, key, DSN or raw event. */
export function createLogger(serviceName: string, logLevel = process.env.LOG_LEVEL ?? 'INFO'): Logger {
  return new Logger({ serviceName, logLevel: logLevel.toUpperCase() as 'INFO' });
}

/** What a function logs through when its Logger is made on its first line (`deferredLogger`): fields only. */
export interface FunctionLogger {
  addContext(context: Context): void;
  debug(message: string, ...fields: Record<string, unknown>[]): void;
  info(message: string, ...fields: Record<string, unknown>[]): void;
  warn(message: string, ...fields: Record<string, unknown>[]): void;
  error(message: string, ...fields: Record<string, unknown>[]): void;
}

/**
 * The same Logger as `createLogger`'s, made on the first line it writes instead of at cold start: for a function whose
 * requests log nothing on the way to their response (the relay, docs/performance.md, "The relay's module load"), the
 * construction (Powertools' options and its Console on stdout and stderr) leaves the cold start and lands on the
 * first warning or error. `addContext` only keeps the invocation's context until then, so every line still carries the
 * request id, and `cold_start` is true only on a line of the environment's first invocation.
 */
export function deferredLogger(serviceName: string, logLevel?: string): FunctionLogger {
  let logger: Logger | undefined;
  let context: Context | undefined;
  let invocations = 0;
  const made = (): Logger => {
    if (logger) return logger;
    logger = createLogger(serviceName, logLevel);
    if (context) {
      // Powertools' cold-start flag is true at an instance's first addContext only: a later invocation spends it first.
      if (invocations > 1) logger.addContext(context);
      logger.addContext(context);
    }
    return logger;
  };
  return {
    addContext(next) {
      invocations++;
      if (logger) logger.addContext(next);
      else context = next;
    },
    debug: (...args) => made().debug(...args),
    info: (...args) => made().info(...args),
    warn: (...args) => made().warn(...args),
    error: (...args) => made().error(...args),
  };
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
