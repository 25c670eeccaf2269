import { describe, expect, it } from 'vitest';
import { INCOMPLETE_ROUTES, noRouteLostSentence } from '#functions/console/page/route-words';

describe('the routes of a report in the console', () => {
  it('says that no model loses its channels when every route was counted', () => {
    expect(noRouteLostSentence({ complete: true })).toBe('No model loses its channels.');
  });

  it('never says that no model loses its channels when not every route was counted', () => {
    expect(noRouteLostSentence({ complete: false })).toBe(
      'No model loses its channels among the routes counted, but not every route was counted.',
    );
    expect(INCOMPLETE_ROUTES).toMatch(/a route not counted may be lost\.$/);
  });
});
