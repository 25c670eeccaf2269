import { describe, expect, it } from 'vitest';
import { MultipartError, parseMultipart } from '#shared/kb/sources/multipart';

/** A multipart body as a client builds it (Node's FormData), base64-encoded as API Gateway hands it over. */
async function formEvent(fields: Record<string, string | { name: string; type: string; bytes: Uint8Array }>) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string') form.append(key, value);
    else form.append(key, new Blob([value.bytes], { type: value.type }), value.name);
  }
  const request = new Request('http://x/', { method: 'POST', body: form });
  const bytes = Buffer.from(await request.arrayBuffer());
  return {
    headers: { 'Content-Type': request.headers.get('content-type') ?? '' },
    body: bytes.toString('base64'),
    isBase64Encoded: true,
  };
}

describe('parseMultipart', () => {
  it('reads the file with its name and type, and the data field', async () => {
    const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0xfe]);
    const event = await formEvent({
      data: JSON.stringify({ datasetId: 'd1' }),
      file: { name: '报告.pdf', type: 'application/pdf', bytes },
    });

    const upload = await parseMultipart(event);

    expect(upload.fileTooLarge).toBe(false);
    expect(upload.data).toBe('{"datasetId":"d1"}');
    expect(upload.file?.name).toBe('报告.pdf');
    expect(upload.file?.contentType).toBe('application/pdf');
    expect([...(upload.file?.bytes ?? [])]).toEqual([...bytes]);
  });

  it('reports a file over the cap without keeping its bytes', async () => {
    const event = await formEvent({ file: { name: 'a.txt', type: 'text/plain', bytes: new Uint8Array(2048) } });

    const upload = await parseMultipart(event, { maxFileBytes: 1024 });

    expect(upload.fileTooLarge).toBe(true);
    expect(upload.file).toBeUndefined();
  });

  it('has no file when the form carries none', async () => {
    expect((await parseMultipart(await formEvent({ data: '{}' }))).file).toBeUndefined();
  });

  it('refuses a body that is not multipart, a missing boundary, and a second file', async () => {
    const json = { headers: { 'content-type': 'application/json' }, body: '{}', isBase64Encoded: false };
    await expect(parseMultipart(json)).rejects.toBeInstanceOf(MultipartError);
    const noBoundary = { headers: { 'content-type': 'multipart/form-data; x=1' }, body: '', isBase64Encoded: false };
    await expect(parseMultipart(noBoundary)).rejects.toThrow(/boundary/);
    const form = new FormData();
    form.append('file', new Blob(['a']), 'a.txt');
    form.append('file', new Blob(['b']), 'b.txt');
    const request = new Request('http://x/', { method: 'POST', body: form });
    const event = {
      headers: { 'content-type': request.headers.get('content-type') ?? '' },
      body: Buffer.from(await request.arrayBuffer()).toString('base64'),
      isBase64Encoded: true,
    };
    await expect(parseMultipart(event)).rejects.toThrow(/one file only/);
  });

  it('refuses a form cut short inside its file, without an uncaught error', async () => {
    const event = await formEvent({
      file: { name: 'a.txt', type: 'text/plain', bytes: new Uint8Array(5000).fill(0x61) },
    });
    const bytes = Buffer.from(event.body, 'base64');
    const cut = { ...event, body: bytes.subarray(0, 3000).toString('base64') };

    await expect(parseMultipart(cut)).rejects.toThrow(/malformed/);
  });

  it('refuses a data field over 64 KiB', async () => {
    await expect(parseMultipart(await formEvent({ data: 'x'.repeat(70 * 1024) }))).rejects.toThrow(/64 KiB/);
  });
});
