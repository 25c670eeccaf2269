/*
 * The route sentences that depend on whether every route was counted (docs/channel-import.md, "Routes"): past the
 * tally's bounds a route not counted may be lost, so the page never says that nothing is lost.
 */

/** The first line of the routes when none is listed as lost. */
export function noRouteLostSentence(routes: { complete: boolean }): string {
  return routes.complete
    ? 'No model loses its channels.'
    : 'No model loses its channels among the routes counted, but not every route was counted.';
}

/** The last line of the routes when not every route was counted. */
export const INCOMPLETE_ROUTES =
  'The table names more routes than an import counts (100,000 routes, 1,000 groups a row, 40 million group and model pairs): these figures cover those counted, and a route not counted may be lost.';
