import * as z from 'zod';
import { requireRecord } from '#shared/dataset-tree';
import { detailView } from '#shared/dataset-views';
import type { CallerContext } from '#shared/http';
import type { DatasetRepository } from '#shared/repositories/datasets';
import { idField, requestError } from '#shared/schemas/dataset';

export interface DatasetDetailDeps {
  repo: Pick<DatasetRepository, 'get'>;
}

/** The query of GET /api/core/dataset/detail. */
export const detailQuerySchema = z.object({ id: idField('id') });

/** One of the caller's records, read with one GetItem. */
export async function datasetDetail(
  input: { query: Record<string, string | undefined>; caller: CallerContext },
  deps: DatasetDetailDeps,
): Promise<ReturnType<typeof detailView>> {
  const parsed = detailQuerySchema.safeParse(input.query);
  if (!parsed.success) throw requestError(parsed.error, 'The query is invalid');
  return detailView(await requireRecord(deps.repo, input.caller.teamId, parsed.data.id));
}
