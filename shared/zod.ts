/**
 * The zod every function validates with at run time: `zod/mini`, the same engine as classic zod with
 * functions in place of methods, so esbuild keeps only what a bundle calls. Classic zod's schema
 * objects carry every method, which keeps all of it in each bundle (about 90 KB and most of the
 * module-load time over the AWS SDK floor; docs/performance.md). Classic zod stays for what never
 * runs in a function (the OpenAPI documents, response schemas, the stage config, tools).
 *
 * zod/mini loads no messages: English is configured here, once, so an issue without a message of
 * ours reads as it does with classic zod, bundled or not.
 */
import { config, type core } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// English is built on the first message zod needs from it, not at every function's cold start (docs/performance.md,
// "The relay's module load"); the messages are en()'s own.
let english: core.$ZodErrorMap | undefined;
config({
  localeError: (issue) => {
    english ??= en().localeError;
    return english(issue);
  },
});

export * from 'zod/mini';

/**
 * Builds a schema at module scope. Call it behind esbuild's `@__PURE__` annotation (see
 * shared/config.ts): esbuild drops a call so marked when no code of the bundle reads its result,
 * and the argument, a function, has no side effect of its own. A bundle then builds at cold start
 * only the schemas its function uses, and loads nothing only another function's schema needs (the
 * import's allow-list and CA bundle bring `node:net` and `node:crypto`). zod marks its own
 * functions free of side effects, but esbuild honours those marks only inside zod's files, so a
 * bare `z.object(...)` at module scope stays in every bundle that imports its module.
 */
export const moduleSchema = <T>(build: () => T): T => build();
