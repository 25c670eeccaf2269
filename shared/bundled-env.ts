/**
 * Configuration compiled into a function's bundle instead of its environment: Lambda caps a
 * function's environment at 4 KB, which a large model catalogue or a CA bundle would pass. The CDK
 * stack (infra/constructs/function.ts) has esbuild inject a module exporting BUNDLED_ENV_GLOBAL: the
 * base64 of a JSON object of variable name to value (never on esbuild's command line, which a large
 * catalogue would overflow).
 * They are defaults of the same variables: a variable set in the environment wins. Outside a
 * bundle (npm start, tests) the global is undefined and only the environment counts.
 */

/** The identifier esbuild replaces; nothing else may use this name. */
export const BUNDLED_ENV_GLOBAL = '__BUNDLED_ENV__';

declare const __BUNDLED_ENV__: string | undefined;

/** Encodes values for BUNDLED_ENV_GLOBAL (at synth time). */
export function encodeBundledEnv(values: Readonly<Record<string, string>>): string {
  return Buffer.from(JSON.stringify(values), 'utf8').toString('base64');
}

/** Decodes what encodeBundledEnv produced. */
export function decodeBundledEnv(encoded: string): Record<string, string> {
  const values: unknown = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return {};
  return Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** The values compiled into this bundle, or none when running unbundled. */
export function bundledEnv(): Record<string, string> {
  return typeof __BUNDLED_ENV__ === 'string' ? decodeBundledEnv(__BUNDLED_ENV__) : {};
}

/** The environment a function reads its configuration from: bundled defaults, overridden by process.env. */
export function configEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = bundledEnv();
  for (const [name, value] of Object.entries(env)) {
    // An empty variable (one the template declares without a value) does not hide a bundled value.
    if (value !== undefined && (value !== '' || !(name in merged))) merged[name] = value;
  }
  return merged;
}
