/**
 * The pieces every topic's route contracts are made of (openapi/contracts-<topic>.ts): the contract types,
 * the key of a route, each API's error responses and the examples several topics show.
 */

import type * as z from 'zod';
import { datasetErrorKindBodySchema } from '#shared/envelopes/dataset';
import { proxyErrorBodySchema } from '#shared/envelopes/proxy';
import { DATASET_ERROR_KINDS, type DatasetErrorKind } from '#shared/errors';
import type { ApiName, RouteDef } from '#shared/routes';
import { openApiDocumentSchema } from '#shared/schemas/openapi';
import { relayErrorBodySchema, upstreamErrorBodySchema } from '#shared/schemas/relay';

/** One response a route may give: its status, what it means and the zod schema of its body. */
export interface ResponseContract {
  /** `default`: any status the route does not list (OpenAPI's `default` response; the relay's upstream errors). */
  readonly status: number | 'default';
  readonly description: string;
  readonly body: z.core.$ZodType;
  /** Default `application/json`. */
  readonly contentType?: string;
  /** Several media types with the same body schema (instead of `contentType`): a route that serves files. */
  readonly contentTypes?: readonly string[];
  readonly example?: unknown;
}

export interface RouteContract {
  /** Unique within the API; the name client generators give the call. */
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly request?: {
    /** The JSON body, as the handler parses it (input side of the schema). */
    readonly body?: z.core.$ZodType;
    readonly bodyExample?: unknown;
    /** The body's media type when it is not JSON (an upload: `multipart/form-data`, its parts as properties). */
    readonly bodyContentType?: string;
    /** One query parameter per property. */
    readonly query?: z.core.$ZodObject;
    /** One path parameter per property (the route's `{name}` segments). */
    readonly path?: z.core.$ZodObject;
  };
  readonly success: ResponseContract;
  /** The success as server-sent events too (the relay's `stream: true`): the same status, another media type. */
  readonly stream?: ResponseContract;
  /** Errors the function answers itself; the gateway's own (401, 413, 429, 5xx) are added from shared/gateway-responses.ts. */
  readonly errors: readonly ResponseContract[];
}

/** The key of a route in ROUTE_CONTRACTS. */
export const routeKey = (route: Pick<RouteDef, 'method' | 'path'>) => `${route.method} ${route.path}`;

/** One topic's contracts, by API and `METHOD path`; openapi/contracts.ts merges every topic's. */
export type TopicContracts = Partial<Record<ApiName, Readonly<Record<string, RouteContract>>>>;

export const datasetError = (kind: DatasetErrorKind): ResponseContract => {
  const { httpStatus, code, statusText, when } = DATASET_ERROR_KINDS[kind];
  return {
    status: httpStatus,
    description: `\`${statusText}\` (code ${code}): ${when}`,
    body: datasetErrorKindBodySchema(kind),
  };
};
export const datasetErrors = (...kinds: DatasetErrorKind[]): ResponseContract[] => kinds.map(datasetError);
/** A relay key as every read shows it (shared/schemas/keys.ts). */
export const KEY_EXAMPLE = {
  id: '5f0c2a9e1b7d4c3a8e6f2b10',
  key: 'sk-…5f0c2a9e1b7d4c3a8e6f2b10',
  name: 'billing-service',
  status: 'enabled',
  expired: false,
  groups: ['default'],
  models: ['gpt-4o'],
  ips: null,
  expiresAt: null,
  unlimitedQuota: false,
  remainQuota: 500000,
  usedQuota: 0,
  createdAt: '2026-11-27T10:00:00.000Z',
  lastUsedAt: '2026-11-27T10:05:00.000Z',
  editedAt: null,
  usage: '/api/usage?keyId=5f0c2a9e1b7d4c3a8e6f2b10',
} as const;

export const proxyError = (status: number, description: string): ResponseContract => ({
  status,
  description,
  body: proxyErrorBodySchema,
});

export const relayError = (status: number, description: string): ResponseContract => ({
  status,
  description,
  body: relayErrorBodySchema,
});
export const upstreamError = (status: number | 'default', description: string): ResponseContract => ({
  status,
  description,
  body: upstreamErrorBodySchema,
});
export const openApiContract = (operationId: string, description: string): RouteContract => ({
  operationId,
  summary: 'This OpenAPI 3.1 document (no authorization)',
  description: `${description} The served copy names the host it was fetched from in \`servers\`.`,
  success: { status: 200, description: 'The OpenAPI document of this API', body: openApiDocumentSchema },
  errors: [],
});

/** A channel as the review calls show it, for the examples. */
export const CHANNEL_EXAMPLE = {
  id: '0b4c2f7e9a1d3c5b7e9f0a2c4e6b8d0f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b',
  provider: 'openai',
  legacyType: 1,
  name: 'openai-main',
  baseUrl: 'https://api.openai.com',
  models: ['gpt-4o', 'gpt-4o-mini'],
  key: 'sk-\u2026a3f9',
  status: 'enabled',
  source: { legacyId: 1, host: '10.0.3.15', database: 'legacygw' },
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
  editedAt: null,
  servable: true,
  settings: {
    modelMapping: { 'gpt-4': 'gpt-4o' },
    priority: 10,
    groups: ['default', 'vip'],
    headerOverride: { 'X-Api-Key': 'sk-\u2026c7d2', 'X-Team': 'platform' },
  },
} as const;
