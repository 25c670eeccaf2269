import { describe, expect, it } from 'vitest';
import { documentClient, dynamoClient } from '#shared/clients/dynamodb';

describe('the shared DynamoDB client', () => {
  it('runs no SDK logger middleware, on the client or the document client over it, and keeps the rest', () => {
    const names = (stack: { identify(): string[] }) => stack.identify().map((entry) => entry.split(' ')[0]);

    expect(names(dynamoClient.middlewareStack)).not.toContain('loggerMiddleware');
    expect(names(documentClient.middlewareStack)).not.toContain('loggerMiddleware');
    expect(names(dynamoClient.middlewareStack)).toEqual(
      expect.arrayContaining([
        'serializerMiddleware',
        'retryMiddleware',
        'httpSigningMiddleware',
        'deserializerMiddleware',
      ]),
    );
  });
});
