/**
 * Vitest setup file: every response the test server sends is checked against its OpenAPI document
 * (test/support/contract.ts); a mismatch fails the test during which it was sent, or the file when
 * it was sent from a beforeAll/afterAll hook.
 */
import { afterAll, afterEach } from 'vitest';
import { failOnContractViolations } from './contract-violations.ts';

afterEach(failOnContractViolations);
afterAll(failOnContractViolations);
