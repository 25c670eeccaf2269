/**
 * The three REST APIs as data: their routes, the function behind each, and the credential scope that
 * opens them. Used by the CDK stack, the authorizer's policy and the local server alike.
 */
/** `dataset`: an access token; `admin`: the admin key; `relay`: a relay key (docs/authorization.md). */
export type Scope = 'dataset' | 'admin' | 'relay';
export type ApiName = 'dataset' | 'proxy' | 'relay';
export type FunctionName =
  | KbSourceFunction
  | KnowledgeBaseFunction
  | 'search-test'
  | KbContentFunction
  | 'import-legacygw'
  | ChannelReviewFunction
  | 'usage'
  | 'test-channel'
  | 'list-keys'
  | 'create-key'
  | 'get-key'
  | 'update-key'
  | 'delete-key'
  | 'console'
  | 'openapi'
  | 'relay'
  | 'test-channel'
  | 'usage'
  | 'retest-channels'
  | 'authorizer';

/** The dataset and folder calls: small functions on the datasets table (infra/table-function-specs.ts). */
export type KnowledgeBaseFunction =
  | 'create-dataset'
  | 'create-dataset-folder'
  | 'list-datasets'
  | 'dataset-detail'
  | 'update-dataset'
  | 'delete-dataset'
  | 'dataset-paths';
/** The channel review calls: small functions on the channels table (infra/table-function-specs.ts). */
export type ChannelReviewFunction =
  | 'list-channels'
  | 'get-channel'
  | 'update-channel'
  | 'delete-channel'
  | 'batch-delete-channels';
/** The knowledge base's content functions (docs/knowledge-base-api.md, "Collections, data and training"). */
export type KbContentFunction = 'kb-collections' | 'kb-data' | 'kb-export-collection' | 'train-collection';
/** The knowledge base's source calls: link and file collections, and reading a source (docs/knowledge-base-sources.md). */
export type KbSourceFunction = 'kb-create-source-collection' | 'kb-read-collection' | 'kb-preview-chunks';

export interface RouteDef {
  readonly method: 'POST' | 'GET' | 'PUT' | 'DELETE';
  /**
   * Resource path, as API Gateway writes it (leading slash, no trailing slash). A `{name}` segment is a path
   * parameter matching one non-empty segment, as in API Gateway (`/api/channel/{id}`).
   */
  readonly path: string;
  readonly function: Exclude<FunctionName, 'authorizer'>;
  /**
   * `'none'`: the method has no authorizer (a public page such as the console, which carries no data
   * and sends the admin key itself on every call it makes). Omitted: the API's TOKEN authorizer.
   */
  readonly auth?: 'none';
  /**
   * The function answers through Lambda response streaming (the relay's `/v1` routes, a collection's export): the stack
   * gives the method's integration the streaming transfer mode, and the local server writes the body as it
   * arrives. Omitted: a buffered proxy response.
   */
  readonly streaming?: true;
  /**
   * The credential may come in this header as well as in `Authorization` (Anthropic's SDKs send `x-api-key`). API
   * Gateway REST requires every identity source an authorizer lists to be present, so such a method gets a REQUEST
   * authorizer with no identity source and no result cache that reads either header (docs/authorization.md); the local
   * server does the same. Omitted: the API's TOKEN authorizer on `Authorization`.
   */
  readonly keyHeader?: 'x-api-key';
}

/** The knowledge base's source calls (FastGPT's paths; docs/knowledge-base-sources.md). */
const KB_SOURCE_ROUTES: readonly RouteDef[] = [
  { method: 'POST', path: '/api/core/dataset/collection/create/link', function: 'kb-create-source-collection' },
  // multipart/form-data: one of the dataset API's binary media types, so the body reaches the function in base64.
  { method: 'POST', path: '/api/core/dataset/collection/create/localFile', function: 'kb-create-source-collection' },
  // FastGPT's backup import: a CSV of chunks (q, a, index texts) as its collection/export writes it; multipart too.
  { method: 'POST', path: '/api/core/dataset/collection/create/backup', function: 'kb-create-source-collection' },
  // FastGPT's template import: the same CSV of rows, made from its import template; multipart too.
  { method: 'POST', path: '/api/core/dataset/collection/create/template', function: 'kb-create-source-collection' },
  // FastGPT's web client's file import (v4.14 and later): an address to PUT the file to (two spellings), then the
  // collection from the uploaded file (docs/knowledge-base-sources.md, "Uploads before a collection").
  { method: 'POST', path: '/api/core/dataset/presignDatasetFilePostUrl', function: 'kb-create-source-collection' },
  { method: 'POST', path: '/api/core/dataset/file/presignDatasetFilePostUrl', function: 'kb-create-source-collection' },
  { method: 'POST', path: '/api/core/dataset/collection/create/fileId', function: 'kb-create-source-collection' },
  // The import page's preview step: a source's first chunks, cut as its training will cut them (a function of its own:
  // it holds the file parsers).
  { method: 'POST', path: '/api/core/dataset/file/getPreviewChunks', function: 'kb-preview-chunks' },
  // FastGPT's sync of a link collection: its page read again, trained again when it changed.
  { method: 'POST', path: '/api/core/dataset/collection/sync', function: 'kb-create-source-collection' },
  { method: 'POST', path: '/api/core/dataset/collection/read', function: 'kb-read-collection' },
  // The link collection/read answers: opened by a browser without a token; its signature is the proof.
  { method: 'GET', path: '/api/core/dataset/collection/source', function: 'kb-read-collection', auth: 'none' },
];

export interface ApiDef {
  readonly name: ApiName;
  readonly description: string;
  /** The only token scope whose policy may open this API. */
  readonly scope: Scope;
  readonly routes: readonly RouteDef[];
}

/** The knowledge base's content calls (FastGPT's paths; docs/knowledge-base-api.md, "Collections, data and training"). */
const KB_CONTENT_ROUTES: readonly RouteDef[] = [
  { method: 'POST', path: '/api/core/dataset/collection/create', function: 'kb-collections' },
  { method: 'POST', path: '/api/core/dataset/collection/create/text', function: 'kb-collections' },
  // FastGPT's "train again" with new chunk settings (its web client's re-import of a collection).
  { method: 'POST', path: '/api/core/dataset/collection/create/reTrainingCollection', function: 'kb-collections' },
  { method: 'POST', path: '/api/core/dataset/collection/listV2', function: 'kb-collections' },
  // Deprecated in FastGPT, still called by older clients: the same function answers its older page shape.
  { method: 'POST', path: '/api/core/dataset/collection/list', function: 'kb-collections' },
  { method: 'GET', path: '/api/core/dataset/collection/detail', function: 'kb-collections' },
  // FastGPT's web client reads a collection folder's breadcrumb with it.
  { method: 'GET', path: '/api/core/dataset/collection/paths', function: 'kb-collections' },
  { method: 'PUT', path: '/api/core/dataset/collection/update', function: 'kb-collections' },
  { method: 'POST', path: '/api/core/dataset/collection/update', function: 'kb-collections' },
  { method: 'DELETE', path: '/api/core/dataset/collection/delete', function: 'kb-collections' },
  // FastGPT's web client (from 4.10) and its newest OpenAPI document delete with POST and a body of collectionIds.
  { method: 'POST', path: '/api/core/dataset/collection/delete', function: 'kb-collections' },
  // The stages of one collection's training, as FastGPT's web client draws them in its training dialog.
  { method: 'GET', path: '/api/core/dataset/collection/trainingDetail', function: 'kb-collections' },
  // A collection's chunks as CSV (FastGPT's export): streamed, as it may be far beyond a buffered answer's 6 MB.
  { method: 'POST', path: '/api/core/dataset/collection/export', function: 'kb-export-collection', streaming: true },
  { method: 'POST', path: '/api/core/dataset/data/pushData', function: 'kb-data' },
  { method: 'POST', path: '/api/core/dataset/data/insertData', function: 'kb-data' },
  { method: 'POST', path: '/api/core/dataset/data/v2/list', function: 'kb-data' },
  { method: 'POST', path: '/api/core/dataset/data/list', function: 'kb-data' },
  { method: 'GET', path: '/api/core/dataset/data/detail', function: 'kb-data' },
  { method: 'PUT', path: '/api/core/dataset/data/update', function: 'kb-data' },
  { method: 'POST', path: '/api/core/dataset/data/update', function: 'kb-data' },
  { method: 'DELETE', path: '/api/core/dataset/data/delete', function: 'kb-data' },
  { method: 'GET', path: '/api/core/dataset/training/getDatasetTrainingQueue', function: 'kb-collections' },
  { method: 'GET', path: '/api/core/dataset/training/hasDatasetTrainingError', function: 'kb-collections' },
  // The training dialog's error tab (FastGPT's web client sends these methods): the failed items, one item's detail,
  // training it again (or all of a collection's or knowledge base's), removing one.
  { method: 'POST', path: '/api/core/dataset/training/getTrainingError', function: 'kb-collections' },
  { method: 'POST', path: '/api/core/dataset/training/getTrainingDataDetail', function: 'kb-collections' },
  { method: 'PUT', path: '/api/core/dataset/training/updateTrainingData', function: 'kb-collections' },
  { method: 'POST', path: '/api/core/dataset/training/deleteTrainingData', function: 'kb-collections' },
  // The knowledge base's errors, a collection at a time, and its "retry all" (FastGPT's newer collection page).
  { method: 'POST', path: '/api/core/dataset/training/getDatasetTrainingError', function: 'kb-collections' },
  { method: 'PUT', path: '/api/core/dataset/training/retryErrorCollections', function: 'kb-collections' },
];

export const APIS: Readonly<Record<ApiName, ApiDef>> = {
  dataset: {
    name: 'dataset',
    description: 'Knowledge-base API (FastGPT-compatible)',
    scope: 'dataset',
    routes: [
      { method: 'POST', path: '/api/core/dataset/create', function: 'create-dataset' },
      ...KB_SOURCE_ROUTES,
      { method: 'POST', path: '/api/core/dataset/folder/create', function: 'create-dataset-folder' },
      { method: 'POST', path: '/api/core/dataset/list', function: 'list-datasets' },
      // Older FastGPT scripts list with GET and a query; the same function reads it like the POST's body.
      { method: 'GET', path: '/api/core/dataset/list', function: 'list-datasets' },
      { method: 'GET', path: '/api/core/dataset/detail', function: 'dataset-detail' },
      { method: 'PUT', path: '/api/core/dataset/update', function: 'update-dataset' },
      // FastGPT's update takes any method; its clients send POST as often as PUT.
      { method: 'POST', path: '/api/core/dataset/update', function: 'update-dataset' },
      { method: 'DELETE', path: '/api/core/dataset/delete', function: 'delete-dataset' },
      { method: 'GET', path: '/api/core/dataset/paths', function: 'dataset-paths' },
      // The search of one knowledge base (docs/knowledge-base-search.md).
      { method: 'POST', path: '/api/core/dataset/searchTest', function: 'search-test' },
      ...KB_CONTENT_ROUTES,
      { method: 'GET', path: '/openapi.json', function: 'openapi', auth: 'none' },
    ],
  },
  proxy: {
    name: 'proxy',
    description: 'Channel proxy API',
    scope: 'admin',
    routes: [
      { method: 'POST', path: '/api/channels/import/legacygw', function: 'import-legacygw' },
      // A channels table sent as rows (read from a SQLite file by the console or the terminal): the same import
      // function and core, one more source (docs/channel-import.md, "Rows sent by a client").
      { method: 'POST', path: '/api/channels/import/rows', function: 'import-legacygw' },
      // AI Proxy spells the list `/api/channels/`. API Gateway cannot hold a resource with a trailing slash
      // distinct from `/api/channels`, so the route is `/api/channels` and findRoute ignores one trailing slash
      // (docs/channel-review-api.md, "Paths").
      { method: 'GET', path: '/api/channels', function: 'list-channels' },
      { method: 'POST', path: '/api/channels/batch_delete', function: 'batch-delete-channels' },
      { method: 'GET', path: '/api/channel/{id}', function: 'get-channel' },
      { method: 'PUT', path: '/api/channel/{id}', function: 'update-channel' },
      { method: 'DELETE', path: '/api/channel/{id}', function: 'delete-channel' },
      // Admin calls about the relay (channel test, usage), so they stay on this API (admin key); the relay API opens only `/v1`.
      { method: 'POST', path: '/api/channel/{id}/test', function: 'test-channel' },
      { method: 'GET', path: '/api/usage', function: 'usage' },
      // Relay keys as the operator sees them (docs/channel-review-api.md, "Keys"): masked, the whole key shown once.
      { method: 'GET', path: '/api/keys', function: 'list-keys' },
      { method: 'POST', path: '/api/keys', function: 'create-key' },
      { method: 'GET', path: '/api/key/{id}', function: 'get-key' },
      { method: 'PUT', path: '/api/key/{id}', function: 'update-key' },
      { method: 'DELETE', path: '/api/key/{id}', function: 'delete-key' },
      { method: 'GET', path: '/console', function: 'console', auth: 'none' },
      // The console's SQLite worker and WebAssembly build, fetched only when a SQLite file is picked
      // (docs/console.md, "Import from a SQLite file"); content-hashed names.
      { method: 'GET', path: '/console/assets/{name}', function: 'console', auth: 'none' },
      { method: 'GET', path: '/openapi.json', function: 'openapi', auth: 'none' },
      // Locally both APIs share one host and `/openapi.json` is the knowledge-base API's: this
      // path tells the channel proxy API's document apart (docs/openapi.md).
      { method: 'GET', path: '/api/channels/openapi.json', function: 'openapi', auth: 'none' },
    ],
  },
  relay: {
    name: 'relay',
    description: 'OpenAI-compatible relay over the imported channels',
    scope: 'relay',
    // One function behind every route: they share its channel cache and its grants (STYLE.md).
    routes: [
      { method: 'POST', path: '/v1/chat/completions', function: 'relay', streaming: true },
      { method: 'POST', path: '/v1/embeddings', function: 'relay', streaming: true },
      { method: 'GET', path: '/v1/models', function: 'relay', streaming: true },
      // Anthropic's Messages API (Claude Code, Anthropic's SDKs: the key in x-api-key or as a Bearer token).
      { method: 'POST', path: '/v1/messages', function: 'relay', streaming: true, keyHeader: 'x-api-key' },
      // Anthropic's token counting (Claude Code), its credentials as for Messages.
      { method: 'POST', path: '/v1/messages/count_tokens', function: 'relay', streaming: true, keyHeader: 'x-api-key' },
      // OpenAI's Responses API (Codex).
      { method: 'POST', path: '/v1/responses', function: 'relay', streaming: true },
      // The relay's OpenAPI document, under `/v1` both locally (where `/openapi.json` is the knowledge-base API's) and
      // deployed (docs/openapi.md); public, buffered, served by the function that serves the other two.
      { method: 'GET', path: '/v1/openapi.json', function: 'openapi', auth: 'none' },
    ],
  },
};

/**
 * Media types each API returns as bytes: API Gateway decodes a function's base64 body into bytes when the request's
 * first Accept type is one of these (else it passes the base64 text). Request bodies of these types would reach the
 * functions base64-encoded, so the list names only what no request sends: the console's WebAssembly build.
 */
export const BINARY_MEDIA_TYPES: Readonly<Record<ApiName, readonly string[]>> = {
  // File uploads (collection/create/localFile) must reach the function as bytes, not as UTF-8 text.
  dataset: ['multipart/form-data'],
  proxy: ['application/wasm'],
  // The relay streams text (JSON, server-sent events); a binary type would turn request bodies into base64.
  relay: [],
};

/** Handler entry of each function, relative to the repository root. */
export const FUNCTION_ENTRIES: Readonly<Record<FunctionName, string>> = {
  'kb-create-source-collection': 'functions/kb-create-source-collection/handler.ts',
  'kb-read-collection': 'functions/kb-read-collection/handler.ts',
  'kb-preview-chunks': 'functions/kb-preview-chunks/handler.ts',
  'create-dataset': 'functions/create-dataset/handler.ts',
  'create-dataset-folder': 'functions/create-dataset-folder/handler.ts',
  'list-datasets': 'functions/list-datasets/handler.ts',
  'dataset-detail': 'functions/dataset-detail/handler.ts',
  'update-dataset': 'functions/update-dataset/handler.ts',
  'delete-dataset': 'functions/delete-dataset/handler.ts',
  'dataset-paths': 'functions/dataset-paths/handler.ts',
  'search-test': 'functions/search-test/handler.ts',
  'kb-collections': 'functions/kb-collections/handler.ts',
  'kb-data': 'functions/kb-data/handler.ts',
  'kb-export-collection': 'functions/kb-export-collection/handler.ts',
  // No route: the training queue's consumer (SQS deployed, infra/local/kb-queue.ts under `npm start`).
  'train-collection': 'functions/train-collection/handler.ts',
  'import-legacygw': 'functions/import-legacygw/handler.ts',
  'list-channels': 'functions/list-channels/handler.ts',
  'get-channel': 'functions/get-channel/handler.ts',
  'update-channel': 'functions/update-channel/handler.ts',
  'delete-channel': 'functions/delete-channel/handler.ts',
  'batch-delete-channels': 'functions/batch-delete-channels/handler.ts',
  'list-keys': 'functions/list-keys/handler.ts',
  'create-key': 'functions/create-key/handler.ts',
  'get-key': 'functions/get-key/handler.ts',
  'update-key': 'functions/update-key/handler.ts',
  'delete-key': 'functions/delete-key/handler.ts',
  console: 'functions/console/handler.ts',
  openapi: 'functions/openapi/handler.ts',
  relay: 'functions/relay/handler.ts',
  'test-channel': 'functions/test-channel/handler.ts',
  usage: 'functions/usage/handler.ts',
  // No route: the re-test schedule's target (EventBridge deployed, a timer under `npm start`).
  'retest-channels': 'functions/retest-channels/handler.ts',
  authorizer: 'functions/authorizer/handler.ts',
};

/** True when API Gateway runs the TOKEN authorizer before this route (every route but `auth: 'none'`). */
export const requiresAuthorizer = (route: RouteDef): boolean => route.auth !== 'none';

/**
 * Stage variable naming the API (`dataset` | `proxy` | `relay`) a request came through, so one function
 * behind routes of both APIs (the OpenAPI document) knows which API it answers for.
 */
export const API_NAME_STAGE_VARIABLE = 'apiName';

/** A route matched against a concrete request path. */
export interface RouteMatch {
  api: ApiDef;
  route: RouteDef;
  /** Values of the route's `{name}` segments, as they appear in the path (not percent-decoded); `{}` when none. */
  pathParameters: Record<string, string>;
}

const PARAMETER = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** Matches one route template against a path's segments; the parameters, or undefined. */
function matchTemplate(template: string, segments: readonly string[]): Record<string, string> | undefined {
  const parts = template.split('/');
  if (parts.length !== segments.length) return undefined;
  const parameters: Record<string, string> = {};
  for (const [i, part] of parts.entries()) {
    const segment = segments[i] as string;
    const name = PARAMETER.exec(part)?.[1];
    if (name === undefined) {
      if (part !== segment) return undefined;
    } else {
      if (segment === '') return undefined;
      parameters[name] = segment;
    }
  }
  return parameters;
}

/**
 * Finds the API and route a method and concrete path belong to, with the path parameters. Like API Gateway,
 * a literal route wins over a template, a `{name}` matches exactly one non-empty segment, and one trailing
 * slash is ignored (`/api/channels/` is `/api/channels`).
 */
export function findRoute(method: string, path: string): RouteMatch | undefined {
  const normalized = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const segments = normalized.split('/');
  let templated: RouteMatch | undefined;
  for (const api of Object.values(APIS)) {
    for (const route of api.routes) {
      if (route.method !== method) continue;
      const pathParameters = matchTemplate(route.path, segments);
      if (pathParameters === undefined) continue;
      if (Object.keys(pathParameters).length === 0) return { api, route, pathParameters };
      templated ??= { api, route, pathParameters };
    }
  }
  return templated;
}

/**
 * The IAM resource patterns (after `<stage>/<METHOD>`) that cover every concrete path of a route: each
 * `{name}` becomes `*`, and the trailing-slash spelling is covered too, whichever of the two the gateway
 * puts into the method ARN.
 */
export function routeResourcePatterns(route: RouteDef): string[] {
  const pattern = route.path
    .split('/')
    .map((part) => (PARAMETER.test(part) ? '*' : part))
    .join('/');
  return [pattern, `${pattern}/`];
}
