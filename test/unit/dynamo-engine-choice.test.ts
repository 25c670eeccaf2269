import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { dynamoEndpointSchema } from '#infra/local/dynamo-engine';
import { loadConfig } from '#shared/config';
import { checkJava, javaMajorVersion } from '#test/support/dynamodb-local';

const schema = z.object({ DYNAMODB_ENDPOINT: dynamoEndpointSchema });
const endpointOf = (value: string | undefined) => loadConfig(schema, { DYNAMODB_ENDPOINT: value }).DYNAMODB_ENDPOINT;

describe('DYNAMODB_ENDPOINT', () => {
  it('means the embedded engine when unset, empty or blank', () => {
    expect(endpointOf(undefined)).toBeUndefined();
    expect(endpointOf('')).toBeUndefined();
    expect(endpointOf('   ')).toBeUndefined();
  });

  it('accepts http and https base URLs and keeps scheme, host and port only', () => {
    expect(endpointOf('http://127.0.0.1:8000')).toBe('http://127.0.0.1:8000');
    expect(endpointOf('http://localhost:8000/')).toBe('http://localhost:8000');
    expect(endpointOf('https://dynamodb.example.internal')).toBe('https://dynamodb.example.internal');
    expect(endpointOf('http://[::1]:8000')).toBe('http://[::1]:8000');
  });

  it.each([
    ['not a URL', '127.0.0.1:8000', /DYNAMODB_ENDPOINT must be an http:\/\/ or https:\/\/ URL/],
    ['another scheme', 'ftp://127.0.0.1:8000', /DYNAMODB_ENDPOINT must be an http:\/\/ or https:\/\/ URL/],
    ['a path', 'http://127.0.0.1:8000/dynamo', /DYNAMODB_ENDPOINT must be scheme:\/\/host:port only/],
    ['a query', 'http://127.0.0.1:8000/?x=1', /DYNAMODB_ENDPOINT must be scheme:\/\/host:port only/],
  ])('rejects %s, naming the variable', (_case, value, message) => {
    expect(() => endpointOf(value)).toThrow(message);
  });

  it('rejects credentials in the URL without repeating them', () => {
    const loading = () => endpointOf('http://user:pa55word@127.0.0.1:8000');

    expect(loading).toThrow(/DYNAMODB_ENDPOINT must be scheme:\/\/host:port only, with no credentials/);
    expect(loading).not.toThrow(/pa55word/);
  });
});

describe('the Java runtime DynamoDB Local needs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fake-java-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** An executable that prints `versionLine` on stderr, as `java -version` does. */
  function fakeJava(versionLine: string): string {
    const file = join(dir, `java-${Math.random().toString(36).slice(2)}`);
    writeFileSync(file, `#!/bin/sh\necho '${versionLine}' >&2\n`);
    chmodSync(file, 0o755);
    return file;
  }

  it('reads the major version of both version schemes', () => {
    expect(javaMajorVersion('openjdk version "17.0.15" 2025-04-15')).toBe(17);
    expect(javaMajorVersion('openjdk version "21" 2023-09-19')).toBe(21);
    expect(javaMajorVersion('java version "1.8.0_392"')).toBe(8);
    expect(javaMajorVersion('no version here')).toBeUndefined();
  });

  it('accepts Java 17 or later', async () => {
    await expect(checkJava(fakeJava('openjdk version "17.0.15" 2025-04-15'))).resolves.toBeUndefined();
  });

  it('rejects an older Java, saying what to install', async () => {
    await expect(checkJava(fakeJava('java version "1.8.0_392"'))).rejects.toThrow(
      'DynamoDB Local needs a Java 17+ runtime on PATH (Debian: apt-get install -y default-jre-headless); found Java 8',
    );
  });

  it('rejects a missing java, saying what to install', async () => {
    await expect(checkJava(join(dir, 'no-such-java'))).rejects.toThrow(
      /DynamoDB Local needs a Java 17\+ runtime on PATH \(Debian: apt-get install -y default-jre-headless\): .* failed \(ENOENT\)/,
    );
  });
});
