import { requireRecord } from '#shared/dataset-tree';
import { detailView } from '#shared/dataset-views';
import type { CallerContext } from '#shared/http';
import type { ModelCatalog } from '#shared/model-catalog';
import type { DatasetRepository } from '#shared/repositories/datasets';
import type { IdQuery } from '#shared/schemas/dataset-fields';
import type { DatasetDetail } from '#shared/schemas/datasets';

export interface DatasetDetailDeps {
  repo: Pick<DatasetRepository, 'get'>;
  catalog: ModelCatalog;
}

/** One of the caller's records, read with one GetItem, with its model items and the caller's permission. */
export async function datasetDetail(
  input: { query: IdQuery; caller: CallerContext },
  deps: DatasetDetailDeps,
): Promise<DatasetDetail> {
  return detailView(await requireRecord(deps.repo, input.caller.teamId, input.query.id), deps.catalog);
}
