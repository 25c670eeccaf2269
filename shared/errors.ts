/**
 * The project's error hierarchy. One exposure rule: an AppError below 500 carries a message
 * safe to show the caller; anything else becomes a generic 500 (see each API's envelope module).
 */
export class AppError extends Error {
  /** True when the message may be shown to the caller (by default: below 500). */
  readonly exposed: boolean;

  constructor(
    /** HTTP status the gateway returns. */
    readonly httpStatus: number,
    message: string,
    options?: { cause?: unknown; expose?: boolean },
  ) {
    super(message, options);
    this.name = new.target.name;
    this.exposed = options?.expose ?? httpStatus < 500;
  }
}

/** A FastGPT-style error of the knowledge-base API: body `code` and `statusText` (docs/knowledge-base-api.md). */
export class DatasetApiError extends AppError {
  constructor(
    httpStatus: number,
    readonly code: number,
    readonly statusText: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(httpStatus, message, options);
  }
}

/**
 * Every error row of the knowledge-base API (docs/knowledge-base-api.md) that a function answers itself, as data:
 * the errors below are made from it, and the OpenAPI documents describe the error bodies from it.
 */
export const DATASET_ERROR_KINDS = {
  invalidParams: { httpStatus: 400, code: 507000, statusText: 'invalidParams', when: 'a body or parameter is invalid' },
  missingParams: { httpStatus: 400, code: 507004, statusText: 'missingParams', when: 'a required field is missing' },
  unExistDataset: {
    httpStatus: 404,
    code: 501002,
    statusText: 'unExistDataset',
    when: "the knowledge base or folder does not exist in the caller's team",
  },
  unExistCollection: {
    httpStatus: 404,
    code: 501003,
    statusText: 'unExistCollection',
    when: "the collection does not exist in the caller's team",
  },
  fileNotFound: {
    httpStatus: 404,
    code: 507002,
    statusText: 'fileNotFound',
    when: "the uploaded file a key names is not the caller's team's (never uploaded, older than a day, or already made a collection)",
  },
  notSupportSync: {
    httpStatus: 400,
    code: 501001,
    statusText: 'notSupportSync',
    when: 'collection/sync names a collection that is not a link collection (only a link is read again)',
  },
  unAuthDatasetData: {
    httpStatus: 404,
    code: 501006,
    statusText: 'unAuthDatasetData',
    when: "the data (chunk) does not exist in the caller's team",
  },
  invalidModel: {
    httpStatus: 400,
    code: 501010,
    statusText: 'invalidVectorModelOrQAModel',
    when: 'a model name is not in the model catalogue',
  },
  embeddingUnavailable: {
    httpStatus: 424,
    code: 424,
    statusText: 'embeddingUnavailable',
    when: "the question could not be embedded: no channel serves the knowledge base's vector model, or every channel failed",
  },
  tooManyRequests: {
    httpStatus: 429,
    code: 429,
    statusText: 'tooManyRequests',
    when: 'the record or its folder tree changed while the call ran (another move of the team); send it again',
  },
  unauthorized: {
    httpStatus: 401,
    code: 403,
    statusText: 'unAuthorization',
    when: 'the Authorization header is missing or malformed',
  },
  unAuthApiKey: {
    httpStatus: 401,
    code: 514,
    statusText: 'unAuthApiKey',
    when: 'the token is unknown, expired or not valid for this API',
  },
} as const satisfies Record<string, { httpStatus: number; code: number; statusText: string; when: string }>;
export type DatasetErrorKind = keyof typeof DATASET_ERROR_KINDS;

const datasetError = (kind: DatasetErrorKind) => (message: string) => {
  const { httpStatus, code, statusText } = DATASET_ERROR_KINDS[kind];
  return new DatasetApiError(httpStatus, code, statusText, message);
};

/** Factories for every error row of docs/knowledge-base-api.md. */
export const datasetErrors = {
  invalidParams: datasetError('invalidParams'),
  missingParams: datasetError('missingParams'),
  unExistDataset: datasetError('unExistDataset'),
  unExistCollection: datasetError('unExistCollection'),
  fileNotFound: datasetError('fileNotFound'),
  notSupportSync: datasetError('notSupportSync'),
  unAuthDatasetData: datasetError('unAuthDatasetData'),
  invalidModel: datasetError('invalidModel'),
  embeddingUnavailable: datasetError('embeddingUnavailable'),
  tooManyRequests: datasetError('tooManyRequests'),
  unauthorized: datasetError('unauthorized'),
  unAuthApiKey: datasetError('unAuthApiKey'),
} as const satisfies Record<DatasetErrorKind, (message: string) => DatasetApiError>;

/**
 * An error of the channel proxy API (docs/channel-import.md): only the HTTP status and a message. That document gives
 * "database unreachable" (502) and "deadline exceeded" (504) readable messages, so those are exposed
 * too; the import writes them itself (driver text never reaches them).
 */
export class ProxyApiError extends AppError {
  constructor(httpStatus: number, message: string, options?: { cause?: unknown; expose?: boolean }) {
    super(httpStatus, message, {
      ...options,
      expose: options?.expose ?? (httpStatus < 500 || httpStatus === 502 || httpStatus === 504),
    });
  }
}

/** The import ran past its deadline; `written` channels were stored before it stopped. */
export class DeadlineExceededError extends ProxyApiError {
  constructor(
    readonly written: number,
    options?: { cause?: unknown },
  ) {
    super(
      504,
      `The import did not finish within its deadline; ${written} channel(s) were written. Run the same import again to complete it.`,
      options,
    );
  }
}

/** Storing channels failed after the repository's retries; `written` channels were stored before it gave up. */
export class ChannelsNotStoredError extends ProxyApiError {
  constructor(
    readonly written: number,
    options?: { cause?: unknown },
  ) {
    super(
      500,
      `Storing the channels failed; ${written} channel(s) were written. Run the same import again to complete it.`,
      { ...options, expose: true },
    );
  }
}

/** A configuration value is invalid; thrown at cold start, never at request time. */
export class ConfigError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConfigError';
  }
}
