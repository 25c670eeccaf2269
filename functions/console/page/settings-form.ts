/*
 * The settings part of the edit dialog as data: which fields it shows, how its text becomes settings, and which
 * fields changed. No DOM here, so it is tested on its own.
 */

/** A channel's settings as the API shows them (the subset of shapes the page edits). */
export interface Settings {
  modelMapping?: Record<string, string>;
  priority?: number;
  weight?: number;
  groups?: string[];
  proxyUrl?: string;
  systemPrompt?: string;
  headerOverride?: Record<string, string>;
  paramOverride?: Record<string, unknown>;
  statusCodeMapping?: Record<string, string>;
  extra?: Record<string, unknown>;
  [field: string]: unknown;
}

/** One-line text settings, in the order the dialog shows them. */
export const TEXT_SETTINGS = [
  ['tag', 'Tag'],
  ['organization', 'Organization'],
  ['testModel', 'Test model'],
  ['apiVersion', 'API version'],
  ['region', 'Region'],
  ['projectId', 'Project ID'],
  ['accountId', 'Account ID'],
  ['userId', 'User ID'],
  ['proxyUrl', 'Proxy URL'],
] as const;
/** Settings edited as JSON objects. */
export const JSON_SETTINGS = [
  ['headerOverride', 'Header override (JSON)'],
  ['paramOverride', 'Parameter override (JSON)'],
  ['statusCodeMapping', 'Status code mapping (JSON)'],
  ['extra', 'Other settings (JSON)'],
] as const;
const SETTING_FIELDS = [
  'modelMapping',
  'priority',
  'weight',
  'groups',
  'systemPrompt',
  ...TEXT_SETTINGS.map(([field]) => field),
  ...JSON_SETTINGS.map(([field]) => field),
];

/** What the settings part of the edit dialog holds, as text. */
export interface SettingsForm {
  mapping: [string, string][];
  priority: string;
  weight: string;
  groups: string;
  systemPrompt: string;
  texts: Record<string, string>;
  json: Record<string, string>;
}

/** The settings a form describes; an empty field is absent. Throws a readable error for bad input. */
export function settingsFrom(form: SettingsForm): Settings {
  const settings: Settings = {};
  const mapping = form.mapping.filter(([from]) => from.trim() !== '');
  if (mapping.length > 0) settings.modelMapping = Object.fromEntries(mapping.map(([a, b]) => [a.trim(), b.trim()]));
  for (const [field, label] of [
    ['priority', 'Priority'],
    ['weight', 'Weight'],
  ] as const) {
    const text = form[field].trim();
    if (text === '') continue;
    if (!/^-?\d+$/.test(text)) throw new Error(`${label} must be a whole number.`);
    settings[field] = Number(text);
  }
  const groups = form.groups
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '');
  if (groups.length > 0) settings.groups = groups;
  if (form.systemPrompt !== '') settings.systemPrompt = form.systemPrompt;
  for (const [field] of TEXT_SETTINGS) {
    const text = (form.texts[field] ?? '').trim();
    if (text !== '') settings[field] = text;
  }
  for (const [field, label] of JSON_SETTINGS) {
    const text = (form.json[field] ?? '').trim();
    if (text === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new Error(`${label.replace(' (JSON)', '')} is not valid JSON.`);
    }
    (settings as Record<string, unknown>)[field] = value;
  }
  return settings;
}

/** The settings fields that differ: each changed field whole, `null` for one emptied. */
export function settingsChanges(current: Settings, next: Settings): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const field of SETTING_FIELDS) {
    const before = current[field];
    const after = next[field];
    if (after === undefined) {
      if (before !== undefined) changes[field] = null;
    } else if (JSON.stringify(after) !== JSON.stringify(before)) changes[field] = after;
  }
  return changes;
}
