import * as z from 'zod';

/** The outline of an OpenAPI 3.1 document, as `GET /openapi.json` answers it (the full document is checked against the OpenAPI schema in the tests). */
export const openApiDocumentSchema = z.looseObject({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  servers: z.array(z.looseObject({ url: z.string() })).min(1),
  paths: z.record(z.string(), z.unknown()),
});
export type OpenApiDocument = z.infer<typeof openApiDocumentSchema>;
