/*
 * Rerank as the fake OpenAI-compatible upstream answers it (test/support/fake-upstreams.ts), written from Jina's Reranker
 * API reference (`POST /v1/rerank`: `model`, `query`, `documents` as strings or `{text}`, `top_n`, `return_documents`
 * default true; answer `{model, usage: {total_tokens}, results: [{index, document: {text}, relevance_score}]}`, best
 * first, at most `top_n`; a body it cannot read is 422 with `detail`) and Cohere's (`POST /v1/rerank`, the same body,
 * `return_documents` default false; answer `{id, results: [{index, relevance_score}], meta: {api_version,
 * billed_units: {search_units}}}`; a bad body is 400 with `message`).
 */

export type RerankStyle = 'jina' | 'cohere';

/** Relevance of a document to a query: the share of the query's words the document has (0 to 1). */
export function sharedWords(query: string, document: string): number {
  const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const asked = words(query);
  if (asked.size === 0) return 0;
  const has = words(document);
  let shared = 0;
  for (const word of asked) if (has.has(word)) shared++;
  return shared / asked.size;
}

const text = (document: unknown): string | undefined => {
  if (typeof document === 'string') return document;
  if (typeof document === 'object' && document !== null && typeof (document as { text?: unknown }).text === 'string') {
    return (document as { text: string }).text;
  }
  return undefined;
};

/** The status and JSON answer of a rerank request. */
export function rerankAnswer(
  body: Record<string, unknown> | undefined,
  style: RerankStyle,
  score: (query: string, document: string) => number = sharedWords,
): { status: number; body: unknown } {
  const refuse = (message: string) =>
    style === 'jina' ? { status: 422, body: { detail: message } } : { status: 400, body: { message } };
  if (!body || typeof body.model !== 'string') return refuse('model: field required');
  if (typeof body.query !== 'string') return refuse('query: field required');
  const documents = Array.isArray(body.documents) ? body.documents.map(text) : undefined;
  if (documents === undefined || documents.length === 0 || documents.some((d) => d === undefined)) {
    return refuse('documents: a non-empty list of strings or {text} objects is required');
  }
  const query = body.query;
  const topN = typeof body.top_n === 'number' && body.top_n > 0 ? body.top_n : documents.length;
  const returnDocuments = typeof body.return_documents === 'boolean' ? body.return_documents : style === 'jina';
  const results = (documents as string[])
    .map((document, index) => ({ index, document, relevance_score: score(query, document) }))
    .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
    .slice(0, topN)
    .map(({ index, document, relevance_score }) => ({
      index,
      ...(returnDocuments ? { document: { text: document } } : {}),
      relevance_score,
    }));
  if (style === 'cohere') {
    return {
      status: 200,
      body: { id: 'rerank-fake', results, meta: { api_version: { version: '1' }, billed_units: { search_units: 1 } } },
    };
  }
  const tokens = Math.ceil(((documents as string[]).join(' ').length + query.length) / 4);
  return { status: 200, body: { model: body.model, usage: { total_tokens: tokens }, results } };
}
