import { requireRecord } from '#shared/dataset-tree';
import { detailView } from '#shared/dataset-views';
import type { CallerContext } from '#shared/http';
import type { DatasetRepository } from '#shared/repositories/datasets';
import { idQuerySchema, requestError } from '#shared/schemas/dataset-fields';
import type { DatasetDetail } from '#shared/schemas/datasets';

export interface DatasetDetailDeps {
  repo: Pick<DatasetRepository, 'get'>;
}

/** One of the caller's records, read with one GetItem. */
export async function datasetDetail(
  input: { query: Record<string, string | undefined>; caller: CallerContext },
  deps: DatasetDetailDeps,
): Promise<DatasetDetail> {
  const parsed = idQuerySchema.safeParse(input.query);
  if (!parsed.success) throw requestError(parsed.error, 'The query is invalid');
  return detailView(await requireRecord(deps.repo, input.caller.teamId, parsed.data.id));
}
