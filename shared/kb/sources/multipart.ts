import busboy from 'busboy';
import { MAX_UPLOAD_BYTES } from './files.ts';

/*
 * The `multipart/form-data` body of FastGPT's localFile call, from an API Gateway event (docs/knowledge-base-sources.md,
 * "Files"): API Gateway hands the body base64-encoded (multipart/form-data is one of the dataset API's binary media
 * types, shared/routes.ts), so it is at most ~13.4 MB of text, decoded once into the bytes busboy reads. Memory stays
 * bounded by busboy's limits: one file of at most MAX_UPLOAD_BYTES (a larger one is reported, its bytes dropped as they
 * arrive), a `data` field of at most 64 KiB, at most 16 parts in all.
 */

export const MULTIPART_LIMITS = Object.freeze({ maxDataBytes: 64 * 1024, maxParts: 16 });

export interface UploadedFile {
  readonly name: string;
  readonly contentType: string;
  readonly bytes: Uint8Array;
}

export interface MultipartUpload {
  /** The `file` part, or undefined when the form had none. */
  readonly file?: UploadedFile;
  /** The `data` field's text (JSON of the shared settings), or undefined. */
  readonly data?: string;
  /** True when the file part was larger than MAX_UPLOAD_BYTES (its bytes are not kept). */
  readonly fileTooLarge: boolean;
}

export class MultipartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MultipartError';
  }
}

/** The value of a header, whatever its case. */
function header(headers: Readonly<Record<string, string | undefined>> | null, name: string): string | undefined {
  return Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];
}

/** Parses the form; throws MultipartError for a body that is not a well-formed `multipart/form-data`. */
export function parseMultipart(
  event: {
    readonly headers: Readonly<Record<string, string | undefined>> | null;
    readonly body: string | null;
    readonly isBase64Encoded: boolean;
  },
  limits: { readonly maxFileBytes?: number } = {},
): Promise<MultipartUpload> {
  const contentType = header(event.headers, 'content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    return Promise.reject(new MultipartError('the body must be multipart/form-data with a file and data'));
  }
  const maxFileBytes = limits.maxFileBytes ?? MAX_UPLOAD_BYTES;
  const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: {
          fileSize: maxFileBytes,
          files: 1,
          fields: MULTIPART_LIMITS.maxParts,
          parts: MULTIPART_LIMITS.maxParts,
          fieldSize: MULTIPART_LIMITS.maxDataBytes,
        },
        defParamCharset: 'utf8',
      });
    } catch {
      reject(new MultipartError('the multipart body has no valid boundary'));
      return;
    }
    let file: UploadedFile | undefined;
    let data: string | undefined;
    let fileTooLarge = false;
    let failure: MultipartError | undefined;
    parser.on('file', (field, stream, info) => {
      // A form cut short errors the open file stream too; the parser's own error answers for it.
      stream.on('error', () => undefined);
      if (field !== 'file') {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        if (!fileTooLarge) chunks.push(chunk);
      });
      stream.on('limit', () => {
        fileTooLarge = true;
        chunks.length = 0;
      });
      stream.on('end', () => {
        if (fileTooLarge) return;
        file = {
          name: info.filename ?? '',
          contentType: info.mimeType ?? 'application/octet-stream',
          bytes: new Uint8Array(Buffer.concat(chunks)),
        };
      });
    });
    parser.on('field', (name, value, info) => {
      if (name !== 'data') return;
      if (info.valueTruncated) failure = new MultipartError('the data field is larger than 64 KiB');
      else data = value;
    });
    parser.on('partsLimit', () => {
      failure = new MultipartError(`the form has more than ${MULTIPART_LIMITS.maxParts} parts`);
    });
    parser.on('filesLimit', () => {
      failure = new MultipartError('the form may carry one file only');
    });
    parser.on('error', () => reject(new MultipartError('the multipart body is malformed')));
    parser.on('close', () => {
      if (failure) reject(failure);
      else resolve({ fileTooLarge, ...(file ? { file } : {}), ...(data !== undefined ? { data } : {}) });
    });
    parser.end(body);
  });
}
