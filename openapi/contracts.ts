/**
 * The contract of every route of shared/routes.ts, keyed by API and `METHOD path`: the zod schemas
 * of its request, its success body, and the errors its function answers. The OpenAPI documents are
 * generated from this (openapi/document.ts) and the tests check every HTTP response against them.
 * The schemas are the ones the handlers validate with and the envelopes build with: never a copy.
 *
 * Each topic's contracts are in their own file, openapi/contracts-<topic>.ts, built from
 * openapi/contract-parts.ts; this file only registers them (docs/adding-an-endpoint.md, step 5).
 */

import type { ApiDef, ApiName, RouteDef } from '#shared/routes';
import { APIS } from '#shared/routes';
import { type RouteContract, routeKey, type TopicContracts } from './contract-parts.ts';
import { CHANNEL_CONTRACTS } from './contracts-channels.ts';
import { COUNT_TOKENS_CONTRACTS } from './contracts-count-tokens.ts';
import { DATASET_CONTRACTS } from './contracts-dataset.ts';
import { IMPORT_CONTRACTS } from './contracts-import.ts';
import { KB_CONTENT_CONTRACTS } from './contracts-kb-content.ts';
import { KB_SEARCH_CONTRACTS } from './contracts-kb-search.ts';
import { KB_SOURCE_CONTRACTS } from './contracts-kb-sources.ts';
import { KB_TRAINING_CONTRACTS } from './contracts-kb-training.ts';
import { KEY_CONTRACTS } from './contracts-keys.ts';
import { RELAY_CONTRACTS } from './contracts-relay.ts';

export { type ResponseContract, type RouteContract, routeKey, type TopicContracts } from './contract-parts.ts';

/** Every topic's contracts: a new topic is its import above and one entry here. */
const TOPICS: readonly TopicContracts[] = [
  DATASET_CONTRACTS,
  IMPORT_CONTRACTS,
  CHANNEL_CONTRACTS,
  KEY_CONTRACTS,
  RELAY_CONTRACTS,
  KB_CONTENT_CONTRACTS,
  COUNT_TOKENS_CONTRACTS,
  KB_SOURCE_CONTRACTS,
  KB_SEARCH_CONTRACTS,
  KB_TRAINING_CONTRACTS,
];

/** The topics' contracts merged by API; a route that two topics both describe is a mistake and throws. */
export function mergeTopics(
  topics: readonly TopicContracts[],
): Readonly<Record<ApiName, Readonly<Record<string, RouteContract>>>> {
  const merged: Record<ApiName, Record<string, RouteContract>> = { dataset: {}, proxy: {}, relay: {} };
  for (const topic of topics) {
    for (const [api, contracts] of Object.entries(topic) as [ApiName, Readonly<Record<string, RouteContract>>][]) {
      for (const [key, contract] of Object.entries(contracts)) {
        if (merged[api][key])
          throw new Error(`Route ${key} of the ${api} API has two contracts in openapi/contracts-*.ts`);
        merged[api][key] = contract;
      }
    }
  }
  return merged;
}

export const ROUTE_CONTRACTS = mergeTopics(TOPICS);

/** The contract of a route; throws when it has none (every route needs one: see test/openapi). */
export function contractFor(api: ApiName, route: Pick<RouteDef, 'method' | 'path'>): RouteContract {
  const contract = ROUTE_CONTRACTS[api][routeKey(route)];
  if (!contract) {
    throw new Error(
      `Route ${routeKey(route)} of the ${api} API has no contract in openapi/contracts.ts: add one, then run \`npm run openapi\` (docs/openapi.md, "Adding a route")`,
    );
  }
  return contract;
}

/** Routes without a contract, and contracts without a route, as `api: METHOD path ...` lines. */
export function contractMismatches(
  apis: readonly ApiDef[] = Object.values(APIS),
  contracts: Readonly<Record<ApiName, Readonly<Record<string, RouteContract>>>> = ROUTE_CONTRACTS,
): string[] {
  const problems: string[] = [];
  for (const api of apis) {
    const own = contracts[api.name];
    const keys = new Set(api.routes.map(routeKey));
    for (const key of keys) {
      if (!own[key]) problems.push(`${api.name}: ${key} has no contract in openapi/contracts.ts`);
    }
    for (const key of Object.keys(own)) {
      if (!keys.has(key)) problems.push(`${api.name}: ${key} has a contract but no route in shared/routes.ts`);
    }
  }
  return problems;
}
