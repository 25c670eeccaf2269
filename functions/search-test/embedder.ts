import type { Logger } from '@aws-lambda-powertools/logger';
import { documentClient } from '#shared/clients/dynamodb';
import { ENV, kbSearchRelayEnvSchema, loadConfig } from '#shared/config';
import type { Embedder } from '#shared/kb/contract';
import { relayEmbedder } from '#shared/kb/relay-models';
import type { Reranker } from '#shared/kb/search/types';
import { relayOnDynamo } from '#shared/relay/runtime';

/*
 * The models the search calls, built at cold start: the question is embedded through the relay's routing core in
 * process, with the dataset's vector model and KB_RELAY_GROUP, as the training embeds its chunks
 * (docs/knowledge-base-search.md, "Embedding the question"). Without the relay's tables (CHANNELS_TABLE unset) there is
 * no embedder: embedding recall answers 424 embeddingUnavailable and full-text recall works.
 */
export function searchEmbedder(logger: Logger, env: NodeJS.ProcessEnv = process.env): Embedder | undefined {
  if (!env[ENV.channelsTable]) return undefined;
  const config = loadConfig(kbSearchRelayEnvSchema, env);
  return relayEmbedder(relayOnDynamo(documentClient, config, logger), config[ENV.kbRelayGroup]);
}

/** The relay has no rerank endpoint yet: no reranker, so `usingReRank` is answered false as FastGPT does with no model. */
export function searchReranker(): Reranker | undefined {
  return undefined;
}
