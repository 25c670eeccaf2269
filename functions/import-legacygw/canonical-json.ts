/*
 * Canonical JSON (docs/channel-import.md, "Identity"): the text of a value with the keys of every object in one order,
 * so equal settings give equal text whatever order a family built them in. The engine writes the text in one call; the
 * replacer only reorders an object whose keys are out of order (most settings objects are built in order already).
 */

/** JSON text of `value` with object keys sorted; undefined (and functions) left out as JSON.stringify leaves them. */
export function canonicalJson(value: unknown): string {
  // Without a replacer when nothing needs reordering: the engine then writes the text without calling back.
  return (inCanonicalOrder(value) ? JSON.stringify(value) : JSON.stringify(value, sortedKeys)) ?? 'null';
}

/** Whether every object in `value` already has its keys in the order `sortedKeys` gives them. */
function inCanonicalOrder(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(value)) return value.every(inCanonicalOrder);
  const keys = Object.keys(value);
  if (!inOrder(keys)) return false;
  for (const key of keys) if (!inCanonicalOrder((value as Record<string, unknown>)[key])) return false;
  return true;
}

/**
 * A JSON.stringify replacer giving every object its keys in code-unit order (integer-like keys first, in numeric
 * order, as the engine always enumerates them: the order is still one per content).
 */
function sortedKeys(this: unknown, _key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (inOrder(keys)) return value;
  // A null prototype, so a "__proto__" key is copied as a property.
  const copy: Record<string, unknown> = Object.create(null);
  for (const key of keys.sort()) copy[key] = (value as Record<string, unknown>)[key];
  return copy;
}

function inOrder(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if ((keys[i - 1] as string) > (keys[i] as string)) return false;
  return true;
}
