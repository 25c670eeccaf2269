import { DatasetApiError, datasetErrors } from '../../errors.ts';
import type { DatasetRepository } from '../../repositories/datasets.ts';
import type { CollectionRecord, NewSourceCollection } from '../contract.ts';

/*
 * What the source calls need of the collections core (kb-core, shared/kb/contract.ts): create a link or file collection
 * and queue its training, and find a collection of the caller's team by its id. Injected, so these functions are built
 * and tested without it.
 */
export interface SourceCollections {
  /** Stores the collection (the dataset and parent checked as for every create) and queues its training. */
  createSourceCollection(input: NewSourceCollection): Promise<{ collectionId: string }>;
  /** The team's collection with this id, or undefined (also when it belongs to another team). */
  findCollection(teamId: string, collectionId: string): Promise<CollectionRecord | undefined>;
}

/**
 * INTEGRATOR: replace with kb-core's collections (its `createSourceCollection` and collection lookup) when both branches
 * are merged. Until then a create checks the knowledge base (so an unknown one is the usual 404/501002) and answers 503
 * "not available", and no collection is found.
 */
export function pendingSourceCollections(datasets?: Pick<DatasetRepository, 'get'>): SourceCollections {
  return {
    async createSourceCollection(input) {
      const dataset = await datasets?.get(input.teamId, input.datasetId);
      if (dataset?.type !== 'dataset') throw datasetErrors.unExistDataset('The knowledge base does not exist');
      throw new DatasetApiError(503, 503, 'serviceUnavailable', 'Collections are not available in this build yet');
    },
    findCollection: async () => undefined,
  };
}
