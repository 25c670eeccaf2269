import { expect } from 'vitest';

/** Asserts the knowledge-base API's generic 500: its envelope, with nothing of the cause in it. */
export function expectDatasetInternalError(response: { statusCode: number; body: string }): void {
  expect(response.statusCode).toBe(500);
  expect(JSON.parse(response.body)).toStrictEqual({
    code: 500,
    statusText: 'error',
    message: 'Internal error',
    data: null,
  });
}
