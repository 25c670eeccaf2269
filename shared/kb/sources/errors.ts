import { DatasetApiError, datasetErrors } from '../../errors.ts';
import { SourceError } from '../contract.ts';

/*
 * The source calls' errors in FastGPT's envelope (docs/knowledge-base-sources.md, "Errors"), with FastGPT's codes
 * (packages/global/common/error/code/dataset.ts): 501003 unExistCollection, 501006 unAuthDatasetFile. An upload over
 * the limit answers as the gateway's own 413 does (507000 invalidParams).
 */
export const sourceErrors = {
  unExistCollection: (message: string) => new DatasetApiError(404, 501003, 'unExistCollection', message),
  unAuthDatasetFile: (message: string) => new DatasetApiError(403, 501006, 'unAuthDatasetFile', message),
  fileTooLarge: (message: string) => new DatasetApiError(413, 507000, 'invalidParams', message),
} as const;

/** A SourceError (its message is written for the user) as the API's 400; anything else unchanged. */
export function asRequestError(error: unknown): unknown {
  return error instanceof SourceError ? datasetErrors.invalidParams(error.message) : error;
}
