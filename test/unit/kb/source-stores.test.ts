import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DeleteObjectsCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { sdkStreamMixin } from '@smithy/core/serde';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseAllowList } from '#shared/allow-list';
import { loadConfig } from '#shared/config';
import { linkEnvSchema, sourceStoreEnvSchema } from '#shared/kb/sources/config';
import { contentDisposition, LocalSourceFileStore, S3SourceFileStore } from '#shared/kb/sources/file-stores';
import { createSourceReader } from '#shared/kb/sources/reader';
import { sourceReaderFor } from '#shared/kb/sources/store-wiring';
import * as z from '#shared/zod';
import { makeDocx } from '#test/support/source-files';
import { useTempDir } from '#test/support/temp-dir';

const dir = useTempDir('kb-sources-');
const bytes = new Uint8Array(Buffer.from('# 退货\n\nSeven days.'));

describe('LocalSourceFileStore', () => {
  it('stores, reads and deletes a file in its team directory, owner-only', async () => {
    const store = new LocalSourceFileStore(join(dir(), 'sources'));

    await store.put({ teamId: 't1', fileId: 'f1', name: '政策.md', contentType: 'text/markdown', bytes });

    expect(await store.get('t1', 'f1')).toEqual({ bytes, name: '政策.md', contentType: 'text/markdown' });
    expect((await stat(join(dir(), 'sources', 't1', 'f1'))).mode & 0o777).toBe(0o600);
    await store.delete('t1', ['f1', 'missing']);
    expect(await store.get('t1', 'f1')).toBeUndefined();
  });

  it("never reads another team's file nor a path outside its directory", async () => {
    const store = new LocalSourceFileStore(join(dir(), 'sources'));
    await store.put({ teamId: 't1', fileId: 'f2', name: 'a.txt', contentType: 'text/plain', bytes });

    expect(await store.get('t2', 'f2')).toBeUndefined();
    expect(await store.get('t1/../t1', 'f2')).toBeUndefined();
    expect(await store.get('t1', '../t1/f2')).toBeUndefined();
    await expect(
      store.put({ teamId: '..', fileId: 'x', name: 'a', contentType: 'text/plain', bytes }),
    ).rejects.toThrow();
  });
});

describe('S3SourceFileStore', () => {
  const s3 = mockClient(S3Client);
  beforeEach(() => s3.reset());
  const client = new S3Client({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' },
  });

  it('puts the object under <team>/<file> with its name in metadata', async () => {
    s3.on(PutObjectCommand).resolves({});

    await new S3SourceFileStore(client, 'bucket').put({
      teamId: 't1',
      fileId: 'f1',
      name: '报告 1.pdf',
      contentType: 'application/pdf',
      bytes,
    });

    const input = s3.commandCalls(PutObjectCommand)[0]?.args[0].input;
    expect(input).toMatchObject({ Bucket: 'bucket', Key: 't1/f1', ContentType: 'application/pdf' });
    expect(input?.Metadata).toEqual({ name: encodeURIComponent('报告 1.pdf') });
  });

  it('reads an object back, and answers undefined for a missing one or a bad id without asking S3', async () => {
    s3.on(GetObjectCommand, { Key: 't1/f1' }).resolves({
      Body: sdkStreamMixin(Readable.from([Buffer.from(bytes)])),
      ContentType: 'text/markdown',
      Metadata: { name: encodeURIComponent('政策.md') },
    });
    s3.on(GetObjectCommand, { Key: 't1/gone' }).rejects(new NoSuchKey({ message: 'no', $metadata: {} }));
    const store = new S3SourceFileStore(client, 'bucket');

    expect(await store.get('t1', 'f1')).toEqual({ bytes, name: '政策.md', contentType: 'text/markdown' });
    expect(await store.get('t1', 'gone')).toBeUndefined();
    expect(await store.get('t1', '../t2/f1')).toBeUndefined();
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(2);
  });

  it('deletes in batches of 1,000 keys', async () => {
    s3.on(DeleteObjectsCommand).resolves({});

    await new S3SourceFileStore(client, 'bucket').delete(
      't1',
      Array.from({ length: 1500 }, (_, i) => `f${i}`),
    );

    const calls = s3.commandCalls(DeleteObjectsCommand).map((c) => c.args[0].input.Delete?.Objects?.length);
    expect(calls).toEqual([1000, 500]);
  });

  it('presigns a GET of the object with its name and type, expiring as asked', async () => {
    const url = new URL(
      await new S3SourceFileStore(client, 'bucket').presignGet(
        't1',
        'f1',
        { name: '报告.pdf', contentType: 'application/pdf' },
        300,
      ),
    );

    expect(url.origin).toBe('https://bucket.s3.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/t1/f1');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-Content-Sha256')).toBe('UNSIGNED-PAYLOAD');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request$/);
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(url.searchParams.get('response-content-disposition')).toBe(contentDisposition('报告.pdf', true));
  });
});

describe('createSourceReader', () => {
  it("reads a stored file of the reader's team only, by name or by stored content type", async () => {
    const store = new LocalSourceFileStore(join(dir(), 'reader'));
    const reader = createSourceReader({ store, allowedHosts: parseAllowList([]) });
    await store.put({
      teamId: 't1',
      fileId: 'doc',
      name: 'p.docx',
      contentType: 'application/octet-stream',
      bytes: await makeDocx(['Hello docx.']),
    });
    await store.put({ teamId: 't1', fileId: 'txt', name: 'My notes', contentType: 'text/plain; charset=utf-8', bytes });

    expect(await reader.forTeam('t1').read({ fileId: 'doc', name: 'p.docx' })).toEqual({ text: 'Hello docx.' });
    expect((await reader.forTeam('t1').read({ fileId: 'txt', name: 'My notes' })).text).toBe('# 退货\n\nSeven days.');
    await expect(reader.forTeam('t2').read({ fileId: 'doc', name: 'p.docx' })).rejects.toThrow(/no longer stored/);
    await expect(reader.read({ fileId: 'doc', name: 'p.docx' })).rejects.toThrow(/no team/);
  });

  it('is built from the environment: the directory store and the allow-list', async () => {
    const config = loadConfig(z.extend(sourceStoreEnvSchema, linkEnvSchema.shape), {
      KB_SOURCE_DIR: join(dir(), 'env'),
      LINK_ALLOWED_HOSTS: '127.0.0.1, docs.internal',
    });
    const reader = sourceReaderFor(config);

    expect(config.LINK_ALLOWED_HOSTS.hostNames.has('docs.internal')).toBe(true);
    await expect(reader.forTeam('t1').read({ fileId: 'nothing', name: 'x.txt' })).rejects.toThrow(/no longer stored/);
    expect(() => loadConfig(linkEnvSchema, { LINK_ALLOWED_HOSTS: 'not a host!' })).toThrow(/LINK_ALLOWED_HOSTS/);
    expect(() => sourceReaderFor(loadConfig(z.extend(sourceStoreEnvSchema, linkEnvSchema.shape), {}))).toThrow(
      /KB_SOURCE_BUCKET/,
    );
  });

  it('refuses a link to a metadata address', async () => {
    const reader = createSourceReader({ store: new LocalSourceFileStore(dir()), allowedHosts: parseAllowList([]) });

    await expect(reader.read({ rawLink: 'http://169.254.169.254/', name: 'x' })).rejects.toThrow(/refused address/);
  });
});
