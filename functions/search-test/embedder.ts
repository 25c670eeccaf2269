import type { Logger } from '@aws-lambda-powertools/logger';
import { documentClient } from '#shared/clients/dynamodb';
import { ENV, kbSearchRelayEnvSchema, loadConfig } from '#shared/config';
import type { Embedder } from '#shared/kb/contract';
import { relayChat, relayEmbedder, relayReranker } from '#shared/kb/relay-models';
import { chatQueryExtender } from '#shared/kb/search/query-extension';
import type { QueryExtender, Reranker } from '#shared/kb/search/types';
import { relayOnDynamo } from '#shared/relay/runtime';

/*
 * The models the search calls, built at cold start: the question is embedded, and the candidates reranked, through the
 * relay's routing core in process, with KB_RELAY_GROUP, as the training embeds its chunks
 * (docs/knowledge-base-search.md). Without the relay's tables (CHANNELS_TABLE unset) there is no embedder and no
 * reranker: embedding recall answers 424 embeddingUnavailable, full-text recall works, and nothing is reranked.
 */
export function searchModels(
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): { embedder?: Embedder; extender?: QueryExtender; reranker?: Reranker } {
  if (!env[ENV.channelsTable]) return {};
  const config = loadConfig(kbSearchRelayEnvSchema, env);
  const relay = relayOnDynamo(documentClient, config, logger);
  const group = config[ENV.kbRelayGroup];
  return {
    embedder: relayEmbedder(relay, group),
    // The question's other wordings (datasetSearchUsingExtensionQuery) from the chat model the request names.
    extender: chatQueryExtender(relayChat(relay, group)),
    // Rerank (usingReRank) through the channels that list the rerank model (docs/relay.md, "Rerank").
    reranker: relayReranker(relay, group),
  };
}
