import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_CONNECT_TIMEOUT_MS, type MySqlDsn, type ParsedDsn, parseDsn } from '#functions/import-legacygw/dsn';
import { ProxyApiError } from '#shared/errors';
import { PROPERTY_RUNS } from '#test/reliability/harness';

/** Parses, or returns the error; anything other than a 400 ProxyApiError fails the test. */
function outcome(dsn: string): { ok: true; value: ParsedDsn } | { ok: false; error: ProxyApiError } {
  try {
    return { ok: true, value: parseDsn(dsn) };
  } catch (error) {
    expect(error).toBeInstanceOf(ProxyApiError);
    expect((error as ProxyApiError).httpStatus).toBe(400);
    return { ok: false, error: error as ProxyApiError };
  }
}

// Parts of a DSN, the way an operator's real credentials look: passwords with @ : / ( ) ? & = # and
// anything else, IPv6 hosts, database names of any script.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it must find
const CONTROL = /[\u0000-\u001f\u007f]/;
const NASTY = ['@', ':', '/', '(', ')', '?', '&', '=', '#', '%', '@tcp(', ')/', '[', ']', ' ', '\\', '"', "'"];
const nasty = fc.constantFrom(...NASTY);
const goPassword = fc
  .array(fc.oneof(nasty, fc.string({ unit: 'binary', maxLength: 6 })), { maxLength: 12 })
  .map((p) => p.join(''));
const urlPassword = fc
  .array(fc.oneof(nasty, fc.string({ unit: 'grapheme', maxLength: 6 })), { maxLength: 12 })
  .map((p) => p.join(''));
const goUser = fc.stringMatching(/^[A-Za-z0-9_.$!-][A-Za-z0-9_.$!@()-]{0,15}$/);
// Any user the URL form can carry (percent-encoded); control characters are refused, and tested separately.
const urlUser = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 16 }).filter((u) => !CONTROL.test(u));

const hostName = fc.domain();
const host = fc.oneof(
  fc.ipV4().map((h) => ({ host: h, text: h })),
  hostName.map((h) => ({ host: h, text: h })),
  fc.ipV6().map((h) => ({ host: h, text: `[${h}]` })),
);
const port = fc.option(fc.integer({ min: 1, max: 65_535 }), { nil: undefined });

const databaseName = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 30 })
  .filter((d) => !CONTROL.test(d) && [...d].length <= 64);
/** Three spellings of the same name: the usual encoding, every byte encoded, and lower-case hex digits. */
const encoded = (name: string) =>
  fc.constantFrom(
    encodeURIComponent(name),
    [...Buffer.from(name, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
    encodeURIComponent(name).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  );

const timeoutMs = fc.integer({ min: 0, max: 120_000 });
const params = fc.record(
  {
    timeout: timeoutMs,
    tls: fc.constantFrom('true', 'skip-verify', 'preferred', 'false'),
    charset: fc.constantFrom('utf8mb4', 'utf8', 'latin1'),
    parseTime: fc.constantFrom('true', 'false'),
    loc: fc.constantFrom('Local', 'UTC'),
    collation: fc.constant('utf8mb4_general_ci'),
  },
  { requiredKeys: [] },
);

function queryOf(p: Record<string, string | number>): string {
  const pairs = Object.entries(p).map(([k, v]) => (k === 'timeout' ? `timeout=${v}ms` : `${k}=${v}`));
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

/** What parseDsn must give back for these parts and query parameters (port 3306 when none is given). */
function expectedDsn(
  parts: Pick<ParsedDsn, 'user' | 'password' | 'host' | 'database'> & { port: number | undefined },
  p: { timeout?: number; tls?: string },
): MySqlDsn {
  const ms =
    p.timeout === undefined || p.timeout === 0 ? MAX_CONNECT_TIMEOUT_MS : Math.min(p.timeout, MAX_CONNECT_TIMEOUT_MS);
  return {
    engine: 'mysql',
    ...parts,
    port: parts.port ?? 3306,
    connectTimeoutMs: ms,
    tls: (p.tls ?? 'false') as MySqlDsn['tls'],
  };
}

describe('parseDsn (property)', () => {
  it('gives back every part of a Go-form DSN built from random parts', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('', 'mysql://', 'MySQL://'),
        goUser,
        fc.option(goPassword, { nil: undefined }),
        host,
        port,
        databaseName.chain((name) => fc.tuple(fc.constant(name), encoded(name))),
        params,
        (scheme, user, password, target, portNumber, [database, encodedDatabase], query) => {
          const userinfo = password === undefined ? user : `${user}:${password}`;
          const address = portNumber === undefined ? target.text : `${target.text}:${portNumber}`;
          // A user and a password starting with "//" read as a URL scheme; the rule (test/unit/dsn.test.ts) is that such
          // a DSN needs `mysql://` first, so the property writes it so.
          const schemeLike = scheme === '' && /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(userinfo);
          const dsn = `${schemeLike ? 'mysql://' : scheme}${userinfo}@tcp(${address})/${encodedDatabase}${queryOf(query)}`;

          const parsed = parseDsn(dsn);

          expect(parsed).toEqual(
            expectedDsn({ user, password: password ?? '', host: target.host, port: portNumber, database }, query),
          );
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('gives back every part of a URL-form DSN, percent-decoding user, password and database', () => {
    fc.assert(
      fc.property(
        urlUser,
        urlPassword,
        host,
        port,
        databaseName.chain((name) => fc.tuple(fc.constant(name), encoded(name))),
        params,
        (user, password, target, portNumber, [database, encodedDatabase], query) => {
          const address = portNumber === undefined ? target.text : `${target.text}:${portNumber}`;
          const dsn = `mysql://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${address}/${encodedDatabase}${queryOf(query)}`;

          const parsed = parseDsn(dsn);

          expect(parsed).toEqual(expectedDsn({ user, password, host: target.host, port: portNumber, database }, query));
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('turns any string into a parsed DSN or a 400 ProxyApiError, never another error', () => {
    const fragment = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.constantFrom(
        'mysql://',
        'postgres://',
        '@tcp(',
        '@unix(',
        '@',
        ':',
        ')',
        '/',
        '?',
        '&',
        '=',
        '[',
        ']',
        '::1',
        '%',
        '%zz',
        '%ff',
        '%00',
        'timeout=',
        'tls=',
        'allowAllFiles=true',
        'multiStatements=1',
        '0x7f',
        '169.254.169.254',
        'localhost',
      ),
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 14 }), (parts) => {
        outcome(parts.join(''));
      }),
      { numRuns: PROPERTY_RUNS * 4 },
    );
  });

  it('never puts any piece of the password into an error message, whatever surrounds it', () => {
    // The marker holds letters only, so it is also a plausible parameter or host name: an echo of either shows.
    const marker = 'Zq9xPw';
    const secret = fc
      .tuple(goPassword, fc.constantFrom('', '=1', '&tls=', '?allowAllFiles', '@tcp(', ')/db?'), goPassword)
      .map(([a, b, c]) => `${a}${marker}${b}${c}`);
    // Each head ends where a password begins, so everything up to the last separator is password.
    const head = fc.constantFrom('app:', 'mysql://app:', 'mysql://', 'app@x:', 'mysql://app@x:');
    const separator = fc.constantFrom('@tcp(', '@', '@unix(', '@tcp[', '');
    const tail = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.constantFrom('db)/legacy', 'db:0)/legacy', 'db)/', 'db)/legacy?bogus=1', '[::1)/x', 'db)/a%zz', 'db/x?y=1'),
      goPassword.map((p) => `db)/legacy?${p}`),
    );
    fc.assert(
      fc.property(head, secret, separator, tail, (h, password, sep, t) => {
        const result = outcome(`${h}${password}${sep}${t}`);
        if (!result.ok) expect(result.error.message).not.toContain(marker);
      }),
      { numRuns: PROPERTY_RUNS * 2 },
    );
  });

  it('never echoes a rejected parameter that a URL-form password spills into', () => {
    const marker = 'Zq9xPw';
    fc.assert(
      fc.property(fc.constantFrom('?', '#', '/'), goPassword, (spill, rest) => {
        const result = outcome(`mysql://app:${marker}${spill}${rest}@db/legacy`);
        if (!result.ok) expect(result.error.message).not.toContain(marker);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('refuses host spellings that getaddrinfo would read as a numeric IPv4 address in another base', () => {
    // fc.ipV4Extended: octal (0177.0.0.1), hex (0x7f.1) and shortened (127.1) forms; only plain dotted decimal may pass.
    fc.assert(
      fc.property(fc.ipV4Extended(), (address) => {
        const result = outcome(`app:pw@tcp(${address})/legacy`);
        const plainDecimal = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(
          address,
        );
        expect(result.ok).toBe(plainDecimal);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('never accepts a parameter outside the allowed list, whatever its spelling', () => {
    const allowed = new Set(['timeout', 'tls', 'charset', 'collation', 'parseTime', 'loc']);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constantFrom('allowAllFiles', 'multiStatements', 'AllowAllFiles', 'TLS', 'Timeout', 'timeout ', 'tls%00'),
          fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
        ),
        (name) => {
          const query = `${name}=true`;

          const result = outcome(`app:pw@tcp(db)/legacy?${query}`);

          const names = query
            .split('&')
            .filter((pair) => pair !== '')
            .map((pair) => pair.split('=')[0] ?? '');
          if (result.ok) expect(names.filter((n) => !allowed.has(n))).toEqual([]);
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
