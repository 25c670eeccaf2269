import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { sdkStreamMixin } from '@smithy/core/serde';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  LOCAL_UPLOAD_PATH,
  LocalUploadStore,
  parseUploadKey,
  S3UploadStore,
  UPLOAD_TTL_SECONDS,
  type UploadTarget,
  uploadKey,
} from '#shared/kb/sources/upload-stores';
import { useTempDir } from '#test/support/temp-dir';

const dir = useTempDir('kb-uploads-');
const NOW = new Date('2026-11-28T12:00:00Z');
const target: UploadTarget = {
  teamId: 't1',
  uploadId: 'u1',
  datasetId: 'd'.repeat(24),
  name: '退货 政策.md',
  contentType: 'text/markdown; charset=utf-8',
};

describe('upload keys', () => {
  it('names an upload by its knowledge base and id, and reads back only that shape', () => {
    const key = uploadKey('d'.repeat(24), 'u1');

    expect(key).toBe(`dataset/${'d'.repeat(24)}/u1`);
    expect(parseUploadKey(key)).toEqual({ datasetId: 'd'.repeat(24), uploadId: 'u1' });
    for (const bad of ['dataset/d/../u1', 'dataset/d/u1/x', 'chat/d/u1', 'dataset//u1', 'dataset/d/', 'u1', '']) {
      expect(parseUploadKey(bad), bad).toBeUndefined();
    }
  });
});

describe('S3UploadStore', () => {
  const s3 = mockClient(S3Client);
  beforeEach(() => s3.reset());
  const client = new S3Client({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' },
  });
  const store = new S3UploadStore(client, 'bucket');
  const body = (text: string) => sdkStreamMixin(Readable.from([Buffer.from(text)]));

  it('presigns a PUT under uploads/<team>/<upload> for 10 minutes, its type and metadata signed headers', async () => {
    const { url, headers } = await store.presignUpload(target, { now: NOW });

    const parsed = new URL(url);
    expect(parsed.host).toBe('bucket.s3.eu-west-1.amazonaws.com');
    expect(parsed.pathname).toBe('/uploads/t1/u1');
    expect(parsed.searchParams.get('X-Amz-Expires')).toBe(String(UPLOAD_TTL_SECONDS));
    expect(parsed.searchParams.get('X-Amz-Date')).toBe('20261128T120000Z');
    expect(parsed.searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host;x-amz-meta-dataset;x-amz-meta-name');
    expect(parsed.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    // The metadata are headers the client sends, not query parameters anyone could change.
    expect([...parsed.searchParams.keys()].some((k) => k.startsWith('x-amz-meta'))).toBe(false);
    expect(headers).toEqual({
      'content-type': 'text/markdown; charset=utf-8',
      'x-amz-meta-name': encodeURIComponent('退货 政策.md'),
      'x-amz-meta-dataset': 'd'.repeat(24),
    });
  });

  it("signs exactly as AWS's own S3 presigner signs the same PutObject", async () => {
    const { url } = await store.presignUpload(target, { now: NOW });

    // A client of its own; the same region, credentials and signing time, and no checksum parameter (the SDK's
    // default since 3.729 adds one to a presigned PutObject, which a browser's PUT could not match).
    const reference = new S3Client({
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    const expected = await getSignedUrl(
      reference,
      new PutObjectCommand({
        Bucket: 'bucket',
        Key: 'uploads/t1/u1',
        ContentType: target.contentType,
        Metadata: { name: encodeURIComponent(target.name), dataset: target.datasetId },
      }),
      {
        expiresIn: UPLOAD_TTL_SECONDS,
        signingDate: NOW,
        unhoistableHeaders: new Set(['x-amz-meta-name', 'x-amz-meta-dataset']),
        signableHeaders: new Set(['content-type']),
      },
    );
    const signature = (u: string) => new URL(u).searchParams.get('X-Amz-Signature');
    const signed = (u: string) => new URL(u).searchParams.get('X-Amz-SignedHeaders');
    expect(signed(url)).toBe(signed(expected));
    expect(signature(url)).toBe(signature(expected));
  });

  it('reads an upload with its name and knowledge base from its metadata', async () => {
    s3.on(GetObjectCommand).resolves({
      Body: body('# hi'),
      ContentLength: 4,
      ContentType: 'text/markdown',
      Metadata: { name: encodeURIComponent('退货.md'), dataset: 'd'.repeat(24) },
    });

    const upload = await store.getUpload('t1', 'u1', 100);

    expect(s3.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({ Bucket: 'bucket', Key: 'uploads/t1/u1' });
    expect(upload).toEqual({
      bytes: new Uint8Array(Buffer.from('# hi')),
      name: '退货.md',
      datasetId: 'd'.repeat(24),
      contentType: 'text/markdown',
    });
  });

  it('says too-large without reading an upload over the limit, and undefined for none', async () => {
    let destroyed = false;
    const stream = Readable.from([Buffer.from('x'.repeat(20))]);
    stream.destroy = () => {
      destroyed = true;
      return stream;
    };
    s3.on(GetObjectCommand, { Key: 'uploads/t1/big' }).resolves({ Body: sdkStreamMixin(stream), ContentLength: 20 });
    s3.on(GetObjectCommand, { Key: 'uploads/t1/none' }).rejects(new NoSuchKey({ message: 'no', $metadata: {} }));

    expect(await store.getUpload('t1', 'big', 10)).toBe('too-large');
    expect(destroyed).toBe(true);
    expect(await store.getUpload('t1', 'none', 10)).toBeUndefined();
    expect(await store.getUpload('../t2', 'u1', 10)).toBeUndefined();
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(2);
  });

  it('deletes exactly the upload', async () => {
    s3.on(DeleteObjectCommand).resolves({});

    await store.deleteUpload('t1', 'u1');
    await store.deleteUpload('t1', '../x');

    expect(s3.commandCalls(DeleteObjectCommand).map((c) => c.args[0].input)).toEqual([
      { Bucket: 'bucket', Key: 'uploads/t1/u1' },
    ]);
  });
});

describe('LocalUploadStore', () => {
  const addressOf = async (store: LocalUploadStore) => {
    const { url } = await store.presignUpload(target, { baseUrl: 'http://127.0.0.1:3000', now: NOW });
    return new URL(url);
  };

  it('signs an address the local server accepts for the same type until it expires', async () => {
    const store = new LocalUploadStore(dir());
    const url = await addressOf(store);

    expect(url.pathname).toBe(`${LOCAL_UPLOAD_PATH}/t1/u1`);
    expect(await store.verifyAddress(url.pathname, url.searchParams, target.contentType, NOW)).toEqual(target);
    const later = new Date(NOW.getTime() + (UPLOAD_TTL_SECONDS + 1) * 1000);
    expect(await store.verifyAddress(url.pathname, url.searchParams, target.contentType, later)).toBe('expired');
    expect(await store.verifyAddress(url.pathname, url.searchParams, 'text/html', NOW)).toBeUndefined();
    expect((await stat(`${dir()}/uploads/.signing-key`)).mode & 0o777).toBe(0o600);
  });

  it('refuses an address whose path, knowledge base, name or expiry was changed', async () => {
    const store = new LocalUploadStore(dir());
    const url = await addressOf(store);
    const changed = (name: string, value: string) => {
      const query = new URLSearchParams(url.searchParams);
      query.set(name, value);
      return query;
    };

    const verify = (path: string, query: URLSearchParams) => store.verifyAddress(path, query, target.contentType, NOW);
    expect(await verify(`${LOCAL_UPLOAD_PATH}/t2/u1`, url.searchParams)).toBeUndefined();
    expect(await verify(`${LOCAL_UPLOAD_PATH}/t1/../t2/u1`, url.searchParams)).toBeUndefined();
    expect(await verify(url.pathname, changed('dataset', 'e'.repeat(24)))).toBeUndefined();
    expect(await verify(url.pathname, changed('name', 'x.md'))).toBeUndefined();
    expect(await verify(url.pathname, changed('expires', '9999999999'))).toBeUndefined();
    // Another directory's key (another local run) signs differently.
    expect(
      await new LocalUploadStore(`${dir()}/other`).verifyAddress(
        url.pathname,
        url.searchParams,
        target.contentType,
        NOW,
      ),
    ).toBeUndefined();
  });
});
