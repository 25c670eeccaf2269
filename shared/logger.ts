import { Logger } from '@aws-lambda-powertools/logger';

/** A Powertools logger for one function. Never pass it a token, key, DSN or raw event. */
export function createLogger(serviceName: string, logLevel = process.env.LOG_LEVEL ?? 'INFO'): Logger {
  return new Logger({ serviceName, logLevel: logLevel.toUpperCase() as 'INFO' });
}
