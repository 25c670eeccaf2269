import type { CallerContext } from '#shared/http';
import { requireDataset } from '#shared/kb/collections';
import type { DatasetRepository } from '#shared/repositories/datasets';
import type { KbContentRepository } from '#shared/repositories/kb-content';

export interface TrainingStatusDeps {
  readonly datasets: Pick<DatasetRepository, 'get'>;
  readonly content: Pick<KbContentRepository, 'allCollections'>;
}

/** A knowledge base's training in FastGPT's words (`rebuildingCount`, `trainingCount`) and ours (errors). */
export interface TrainingStatus {
  /** FastGPT counts chunks re-embedded for a new vector model; this product never changes one (always 0). */
  rebuildingCount: number;
  /** Chunks (or queued collections) waiting for training. */
  trainingCount: number;
  /** Collections whose last training failed, and chunks without a vector (found by full text only). */
  errorCollectionCount: number;
  failedChunkCount: number;
  hasError: boolean;
}

/** Pending and failed counts of the caller's knowledge base. */
export async function trainingStatus(
  input: { datasetId: string; caller: CallerContext },
  deps: TrainingStatusDeps,
): Promise<TrainingStatus> {
  await requireDataset(deps.datasets, input.caller.teamId, input.datasetId);
  const collections = await deps.content.allCollections(input.caller.teamId, input.datasetId);
  const trainingCount = collections.reduce((n, c) => n + Math.max(0, c.trainingAmount ?? 0), 0);
  const errorCollectionCount = collections.filter((c) => c.status === 'error').length;
  const failedChunkCount = collections.reduce((n, c) => n + (c.failedChunks ?? 0), 0);
  return {
    rebuildingCount: 0,
    trainingCount,
    errorCollectionCount,
    failedChunkCount,
    hasError: errorCollectionCount > 0 || failedChunkCount > 0,
  };
}
