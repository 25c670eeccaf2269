import type { Logger } from '@aws-lambda-powertools/logger';
import { documentClient } from '#shared/clients/dynamodb';
import { ENV, kbSearchRelayEnvSchema, loadConfig } from '#shared/config';
import type { Embedder } from '#shared/kb/contract';
import { relayChat, relayEmbedder } from '#shared/kb/relay-models';
import { chatQueryExtender } from '#shared/kb/search/query-extension';
import type { QueryExtender, Reranker } from '#shared/kb/search/types';
import { relayOnDynamo } from '#shared/relay/runtime';

/*
 * The models the search calls, built at cold start: the question is embedded through the relay's routing core in
 * process, with the dataset's vector model and KB_RELAY_GROUP, as the training embeds its chunks
 * (docs/knowledge-base-search.md, "Embedding the question"). Without the relay's tables (CHANNELS_TABLE unset) there is
 * no embedder: embedding recall answers 424 embeddingUnavailable and full-text recall works.
 */
export function searchModels(
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): { embedder?: Embedder; extender?: QueryExtender } {
  if (!env[ENV.channelsTable]) return {};
  const config = loadConfig(kbSearchRelayEnvSchema, env);
  const relay = relayOnDynamo(documentClient, config, logger);
  const group = config[ENV.kbRelayGroup];
  // The question's other wordings (datasetSearchUsingExtensionQuery) from the chat model the request names.
  return { embedder: relayEmbedder(relay, group), extender: chatQueryExtender(relayChat(relay, group)) };
}

/** The relay has no rerank endpoint yet: no reranker, so `usingReRank` is answered false as FastGPT does with no model. */
export function searchReranker(): Reranker | undefined {
  return undefined;
}
