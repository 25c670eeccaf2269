/**
 * The two REST APIs as data: their routes, the function behind each, and the token scope that
 * opens them. Used by the CDK stack, the authorizer's policy and the local server alike.
 */
export type Scope = 'dataset' | 'admin';
export type ApiName = 'dataset' | 'proxy';
export type FunctionName =
  | 'create-dataset'
  | 'list-datasets'
  | 'dataset-detail'
  | 'update-dataset'
  | 'delete-dataset'
  | 'dataset-paths'
  | 'import-legacygw'
  | 'console'
  | 'openapi'
  | 'authorizer';

export interface RouteDef {
  readonly method: 'POST' | 'GET' | 'PUT' | 'DELETE';
  /** Resource path, as API Gateway writes it in a method ARN (leading slash). */
  readonly path: string;
  readonly function: Exclude<FunctionName, 'authorizer'>;
  /**
   * `'none'`: the method has no authorizer (a public page such as the console, which carries no data
   * and sends the admin key itself on every call it makes). Omitted: the API's TOKEN authorizer.
   */
  readonly auth?: 'none';
}

export interface ApiDef {
  readonly name: ApiName;
  readonly description: string;
  /** The only token scope whose policy may open this API. */
  readonly scope: Scope;
  readonly routes: readonly RouteDef[];
}

export const APIS: Readonly<Record<ApiName, ApiDef>> = {
  dataset: {
    name: 'dataset',
    description: 'Knowledge-base API (FastGPT-compatible)',
    scope: 'dataset',
    routes: [
      { method: 'POST', path: '/api/core/dataset/create', function: 'create-dataset' },
      { method: 'POST', path: '/api/core/dataset/list', function: 'list-datasets' },
      { method: 'GET', path: '/api/core/dataset/detail', function: 'dataset-detail' },
      { method: 'PUT', path: '/api/core/dataset/update', function: 'update-dataset' },
      { method: 'DELETE', path: '/api/core/dataset/delete', function: 'delete-dataset' },
      { method: 'GET', path: '/api/core/dataset/paths', function: 'dataset-paths' },
      { method: 'GET', path: '/openapi.json', function: 'openapi', auth: 'none' },
    ],
  },
  proxy: {
    name: 'proxy',
    description: 'Channel proxy API',
    scope: 'admin',
    routes: [
      { method: 'POST', path: '/api/channels/import/legacygw', function: 'import-legacygw' },
      { method: 'GET', path: '/console', function: 'console', auth: 'none' },
      { method: 'GET', path: '/openapi.json', function: 'openapi', auth: 'none' },
      // Locally both APIs share one host and `/openapi.json` is the knowledge-base API's: this
      // path tells the channel proxy API's document apart (docs/openapi.md).
      { method: 'GET', path: '/api/channels/openapi.json', function: 'openapi', auth: 'none' },
    ],
  },
};

/** Handler entry of each function, relative to the repository root. */
export const FUNCTION_ENTRIES: Readonly<Record<FunctionName, string>> = {
  'create-dataset': 'functions/create-dataset/handler.ts',
  'list-datasets': 'functions/list-datasets/handler.ts',
  'dataset-detail': 'functions/dataset-detail/handler.ts',
  'update-dataset': 'functions/update-dataset/handler.ts',
  'delete-dataset': 'functions/delete-dataset/handler.ts',
  'dataset-paths': 'functions/dataset-paths/handler.ts',
  'import-legacygw': 'functions/import-legacygw/handler.ts',
  console: 'functions/console/handler.ts',
  openapi: 'functions/openapi/handler.ts',
  authorizer: 'functions/authorizer/handler.ts',
};

/** True when API Gateway runs the TOKEN authorizer before this route (every route but `auth: 'none'`). */
export const requiresAuthorizer = (route: RouteDef): boolean => route.auth !== 'none';

/**
 * Stage variable naming the API (`dataset` | `proxy`) a request came through, so one function
 * behind routes of both APIs (the OpenAPI document) knows which API it answers for.
 */
export const API_NAME_STAGE_VARIABLE = 'apiName';

/** Finds the API and route a method and resource path belong to. */
export function findRoute(method: string, path: string): { api: ApiDef; route: RouteDef } | undefined {
  for (const api of Object.values(APIS)) {
    const route = api.routes.find((r) => r.method === method && r.path === path);
    if (route) return { api, route };
  }
  return undefined;
}
