import { describe, expect, it } from 'vitest';
import { type SettingsForm, settingsChanges, settingsFrom } from '#functions/console/page/settings-form';

const empty: SettingsForm = {
  mapping: [],
  priority: '',
  weight: '',
  groups: '',
  systemPrompt: '',
  texts: {},
  json: {},
};

describe("the console's settings form", () => {
  it('reads pairs, numbers, groups, texts and JSON; leaves out what is empty', () => {
    const settings = settingsFrom({
      ...empty,
      mapping: [
        [' gpt-4 ', 'gpt-4o'],
        ['', 'ignored'],
      ],
      priority: '-3',
      groups: 'default, vip,,',
      texts: { region: ' us-east-1 ', tag: '  ' },
      json: { headerOverride: '{"Authorization": "Bea\u2026Rt4Y"}', extra: ' ' },
    });

    expect(settings).toEqual({
      modelMapping: { 'gpt-4': 'gpt-4o' },
      priority: -3,
      groups: ['default', 'vip'],
      region: 'us-east-1',
      headerOverride: { Authorization: 'Bea\u2026Rt4Y' },
    });
  });

  it('refuses a number that is not whole and JSON that does not parse, naming the field', () => {
    expect(() => settingsFrom({ ...empty, weight: '1.5' })).toThrow('Weight must be a whole number.');
    expect(() => settingsFrom({ ...empty, json: { paramOverride: '{' } })).toThrow(
      'Parameter override is not valid JSON.',
    );
  });

  it('sends only the fields that changed, and null for one emptied', () => {
    const current = { priority: 10, groups: ['a'], headerOverride: { Authorization: 'Bea\u2026Rt4Y' }, tag: 't' };

    const changes = settingsChanges(current, { priority: 11, groups: ['a'], headerOverride: current.headerOverride });

    expect(changes).toEqual({ priority: 11, tag: null });
  });
});
