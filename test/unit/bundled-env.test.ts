import { describe, expect, it } from 'vitest';
import { configEnvironment, decodeBundledEnv, encodeBundledEnv } from '#shared/bundled-env';

describe('configuration compiled into a bundle', () => {
  it('round-trips values through the shell-safe encoding', () => {
    const values = { MODEL_CATALOG: '{"vector":{"models":["a$b`c\'d"]}}', PEM: '-----BEGIN CERTIFICATE-----\nx\n' };

    const encoded = encodeBundledEnv(values);

    expect(encoded).toMatch(/^[A-Za-z0-9+/=]+$/);
    expect(decodeBundledEnv(encoded)).toEqual(values);
  });

  it('ignores an encoded value that is not an object of strings', () => {
    expect(decodeBundledEnv(Buffer.from('[1,2]').toString('base64'))).toEqual({});
    expect(decodeBundledEnv(Buffer.from('{"A":1,"B":"b"}').toString('base64'))).toEqual({ B: 'b' });
  });

  it('reads the environment as it is when the code runs unbundled (npm start, tests)', () => {
    const env = { MODEL_CATALOG: '{}', EMPTY: '' };

    expect(configEnvironment(env)).toEqual(env);
  });
});
