import type { CollectionRecord, NewSourceCollection } from '../contract.ts';

/*
 * What the source calls need of the collections core (kb-core, shared/kb/contract.ts): create a link or file collection
 * and queue its training, and find a collection of the caller's team by its id. Injected (shared/kb/wiring.ts,
 * sourceCollectionsFromEnv), so these functions are tested without it.
 */
export interface SourceCollections {
  /** Stores the collection (the dataset and parent checked as for every create) and queues its training. */
  createSourceCollection(input: NewSourceCollection): Promise<{ collectionId: string }>;
  /** The team's collection with this id, or undefined (also when it belongs to another team). */
  findCollection(teamId: string, collectionId: string): Promise<CollectionRecord | undefined>;
}
