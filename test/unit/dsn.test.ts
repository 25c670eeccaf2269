import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeDsn, MAX_DSN_LENGTH, type ParsedDsn, parseDsn } from '#functions/import-legacygw/dsn';
import { ProxyApiError } from '#shared/errors';

// Every rejection below carries this password (or a piece of it); no message may repeat it.
const SECRET = 'Hunter2';
const PASSWORD = `${SECRET}@:/()x`;

function rejection(dsn: string): ProxyApiError {
  try {
    parseDsn(dsn);
  } catch (error) {
    if (error instanceof ProxyApiError) return error;
    throw error;
  }
  throw new Error('expected the DSN to be rejected');
}

function expectRejected(dsn: string, message: RegExp): void {
  const error = rejection(dsn);
  expect(error.httpStatus).toBe(400);
  expect(error.message).toMatch(message);
  expect(error.message).not.toContain(SECRET);
}

const defaults = { port: 3306, connectTimeoutMs: 10_000, tls: 'false' } as const;

/** `app:s3cret` on db.internal:3307, database `legacy`, in either DSN form. */
const APP_AT_DB_INTERNAL: ParsedDsn = {
  engine: 'mysql',
  user: 'app',
  password: 's3cret',
  host: 'db.internal',
  port: 3307,
  database: 'legacy',
  connectTimeoutMs: 10_000,
  tls: 'false',
};

describe('parseDsn, either form', () => {
  it.each([
    ['the Go driver form', 'app:s3cret@tcp(db.internal:3307)/legacy'],
    ['a mysql:// URL', 'mysql://app:s3cret@db.internal:3307/legacy'],
  ])('takes apart user, password, host, port and database of %s', (_form, dsn) => {
    const parsed = parseDsn(dsn);

    expect(parsed).toEqual(APP_AT_DB_INTERNAL);
  });
});

describe('parseDsn, a SQLite path pasted as a DSN (docs/channel-import.md, "DSN")', () => {
  it.each([
    '/opt/one-api/data/one-api.db',
    './one-api.db',
    'one-api.db',
    'C:\\gateway\\new-api.sqlite3',
    'sqlite:///data/one-api.db',
    'file:one-api.db?cache=shared',
  ])('points %s to the file import', (dsn) => {
    expect(() => parseDsn(dsn)).toThrow(
      /SQLite file's path, not a database server: import the file itself instead, in the console .* npm run --silent import:sqlite -- <file\.db> --url <proxy_url>/,
    );
  });

  it('still reads a MySQL DSN whose database is named like a file', () => {
    expect(parseDsn('app:s3cret@tcp(db.internal:3307)/gw.db')).toMatchObject({ database: 'gw.db' });
  });
});

describe('parseDsn, Go driver form', () => {
  it('defaults the port to 3306, the timeout to 10 s and tls to false', () => {
    const parsed = parseDsn('app:pw@tcp(10.0.0.5)/legacy');

    expect(parsed).toMatchObject({ host: '10.0.0.5', ...defaults });
  });

  it('accepts the optional mysql:// prefix, in any case', () => {
    expect(parseDsn('mysql://app:pw@tcp(db:3306)/legacy')).toMatchObject({ user: 'app', password: 'pw', host: 'db' });
    expect(parseDsn('MySQL://app:pw@tcp(db:3306)/legacy')).toMatchObject({ user: 'app', password: 'pw', host: 'db' });
  });

  it('accepts a user without a password', () => {
    expect(parseDsn('app@tcp(db)/legacy')).toMatchObject({ user: 'app', password: '' });
  });

  it.each([
    ['p@ss', 'app:p@ss@tcp(db)/legacy'],
    ['a:b:c', 'app:a:b:c@tcp(db)/legacy'],
    ['w/o(r)d', 'app:w/o(r)d@tcp(db)/legacy'],
    [PASSWORD, `app:${PASSWORD}@tcp(db)/legacy`],
    ['a@tcp(b', 'app:a@tcp(b@tcp(db)/legacy'],
    ['x)/y?z=1', 'app:x)/y?z=1@tcp(db)/legacy'],
  ])('keeps the password %j that contains separators, splitting at the last @tcp(', (password, dsn) => {
    const parsed = parseDsn(dsn);

    expect(parsed).toMatchObject({ user: 'app', password, host: 'db', database: 'legacy' });
  });

  it('keeps the password literal, without percent-decoding', () => {
    expect(parseDsn('app:p%40ss%3A@tcp(db)/legacy').password).toBe('p%40ss%3A');
  });

  it('percent-decodes the database name', () => {
    expect(parseDsn('app:pw@tcp(db)/legacy%2Dgw%20one').database).toBe('legacy-gw one');
  });

  it('accepts a bracketed IPv6 host with and without a port, and returns it unbracketed', () => {
    expect(parseDsn('app:pw@tcp([::1]:3307)/legacy')).toMatchObject({ host: '::1', port: 3307 });
    expect(parseDsn('app:pw@tcp([2001:db8::5])/legacy')).toMatchObject({ host: '2001:db8::5', port: 3306 });
  });

  it('accepts the highest and lowest ports', () => {
    expect(parseDsn('app:pw@tcp(db:65535)/legacy').port).toBe(65_535);
    expect(parseDsn('app:pw@tcp(db:1)/legacy').port).toBe(1);
  });

  it('trims surrounding whitespace', () => {
    expect(parseDsn('  app:pw@tcp(db)/legacy \n')).toMatchObject({ user: 'app', database: 'legacy' });
  });
});

describe('parseDsn, URL form', () => {
  it('percent-decodes user, password and database', () => {
    const parsed = parseDsn('mysql://app%2Bro:p%40ss%3Aw%2F%28%29@db/legacy%20gw');

    expect(parsed).toMatchObject({ user: 'app+ro', password: 'p@ss:w/()', database: 'legacy gw' });
  });

  it('splits the user info at its last @, like a WHATWG URL', () => {
    expect(parseDsn('mysql://app:p@ss:x@db/legacy')).toMatchObject({ user: 'app', password: 'p@ss:x', host: 'db' });
  });

  it('defaults the port and accepts a bracketed IPv6 host', () => {
    expect(parseDsn('mysql://app:pw@db/legacy').port).toBe(3306);
    expect(parseDsn('mysql://app:pw@[fd00::7]:3310/legacy')).toMatchObject({ host: 'fd00::7', port: 3310 });
  });

  it('accepts the same parameters as the Go form', () => {
    expect(parseDsn('mysql://app:pw@db/legacy?tls=true&timeout=3s')).toMatchObject({
      tls: 'true',
      connectTimeoutMs: 3000,
    });
  });
});

describe('parseDsn, parameters', () => {
  it('accepts and ignores charset, collation, parseTime and loc', () => {
    const parsed = parseDsn(
      'app:pw@tcp(db)/legacy?charset=utf8mb4&collation=utf8mb4_general_ci&parseTime=true&loc=Asia%2FShanghai',
    );

    expect(parsed).toEqual({
      engine: 'mysql',
      user: 'app',
      password: 'pw',
      host: 'db',
      database: 'legacy',
      ...defaults,
    });
  });

  it.each([
    ['5s', 5000],
    ['500ms', 500],
    ['2.5s', 2500],
    ['1s500ms', 1500],
    ['1us', 1],
    ['10s', 10_000],
    ['11s', 10_000],
    ['1m', 10_000],
    ['1h', 10_000],
    ['0', 10_000],
    ['0s', 10_000],
  ])('reads timeout=%s as a connect timeout of %d ms, capped at 10 s', (timeout, ms) => {
    expect(parseDsn(`app:pw@tcp(db)/legacy?timeout=${timeout}`).connectTimeoutMs).toBe(ms);
  });

  it.each(['true', 'skip-verify', 'preferred', 'false'] as const)('honours tls=%s', (tls) => {
    expect(parseDsn(`app:pw@tcp(db)/legacy?tls=${tls}`)).toMatchObject({ tls });
  });

  it('ignores empty parameter segments', () => {
    expect(parseDsn('app:pw@tcp(db)/legacy?&tls=true&')).toMatchObject({ tls: 'true' });
  });

  it('accepts a DSN of exactly the maximum length', () => {
    const prefix = 'app:pw@tcp(db)/legacy?loc=';
    const dsn = prefix + 'x'.repeat(MAX_DSN_LENGTH - prefix.length);

    expect(parseDsn(dsn).database).toBe('legacy');
  });
});

describe('parseDsn rejections (400, and the message never contains the password)', () => {
  it.each([
    ['an empty string', '', /DSN is empty/],
    ['only whitespace', ' \t\n ', /DSN is empty/],
    ['an over-long DSN', `app:${PASSWORD}@tcp(db)/${'d'.repeat(MAX_DSN_LENGTH)}`, /longer than 4096/],
    ['a missing user', `:${PASSWORD}@tcp(db)/legacy`, /no user name/],
    ['an empty user info', '@tcp(db)/legacy', /no user name/],
    ['a control character in the user', `ap\np:${PASSWORD}@tcp(db)/legacy`, /user name contains control/],
    ['an empty host', `app:${PASSWORD}@tcp()/legacy`, /no host/],
    ['a port without a host', `app:${PASSWORD}@tcp(:3306)/legacy`, /no host/],
    ['empty brackets', `app:${PASSWORD}@tcp([]:3306)/legacy`, /no host/],
    ['a host that is not a name', `app:${PASSWORD}@tcp(db!x)/legacy`, /not a valid host name/],
    ['a host with a space', `app:${PASSWORD}@tcp(db x)/legacy`, /not a valid host name/],
    ['a short numeric IPv4 form', `app:${PASSWORD}@tcp(169.254.43518)/legacy`, /not a valid host name/],
    ['a decimal IPv4 form', `app:${PASSWORD}@tcp(2852039166)/legacy`, /not a valid host name/],
    ['a hex IPv4 form', `app:${PASSWORD}@tcp(0xa9fea9fe)/legacy`, /not a valid host name/],
    ['an unbracketed IPv6 host', `app:${PASSWORD}@tcp(::1:3306)/legacy`, /in brackets/],
    ['a bracketed non-IPv6 host', `app:${PASSWORD}@tcp([db]:3306)/legacy`, /must be an IPv6 address/],
    ['an IPv6 zone id', `app:${PASSWORD}@tcp([fe80::1%eth0]:3306)/legacy`, /must be an IPv6 address/],
    ['an unclosed bracket', `app:${PASSWORD}@tcp([::1:3306)/legacy`, /unclosed \[/],
    ['text after the bracket', `app:${PASSWORD}@tcp([::1]3306)/legacy`, /host is malformed/],
    ['a non-numeric port', `app:${PASSWORD}@tcp(db:abc)/legacy`, /port must be a number from 1 to 65535/],
    ['an empty port', `app:${PASSWORD}@tcp(db:)/legacy`, /port must be a number from 1 to 65535/],
    ['port 0', `app:${PASSWORD}@tcp(db:0)/legacy`, /port must be a number from 1 to 65535/],
    ['port 65536', `app:${PASSWORD}@tcp(db:65536)/legacy`, /port must be a number from 1 to 65535/],
    ['a signed port', `app:${PASSWORD}@tcp(db:+80)/legacy`, /port must be a number from 1 to 65535/],
    ['a six-digit port', `app:${PASSWORD}@tcp(db:003306)/legacy`, /port must be a number from 1 to 65535/],
    ['a missing database', `app:${PASSWORD}@tcp(db)/`, /no database name/],
    ['a missing path', `app:${PASSWORD}@tcp(db)`, /no database name/],
    ['only parameters after the slash', `app:${PASSWORD}@tcp(db)/?tls=true`, /no database name/],
    ['a database with a slash', `app:${PASSWORD}@tcp(db)/legacy/x`, /must not contain '\/'/],
    ['bad percent-encoding in the database', `app:${PASSWORD}@tcp(db)/legacy%zz`, /database name has invalid percent/],
    ['a control character in the database', `app:${PASSWORD}@tcp(db)/leg%00acy`, /database name contains control/],
    ['an over-long database name', `app:${PASSWORD}@tcp(db)/${'d'.repeat(65)}`, /longer than 64 characters/],
    ['a missing closing parenthesis', `app:${PASSWORD}@tcp(db/legacy`, /malformed/],
    ['a unix socket', `app:${PASSWORD}@unix(/var/run/mysqld/mysqld.sock)/legacy`, /network must be tcp/],
    ['tcp6', `app:${PASSWORD}@tcp6([::1]:3306)/legacy`, /network must be tcp/],
    ['a unix socket in the URL form', `mysql://app:${SECRET}@unix(/tmp/mysql.sock)/legacy`, /network must be tcp/],
    ['another scheme', `mariadb://app:${SECRET}@db/legacy`, /scheme must be mysql/],
    ['an http URL', `http://app:${SECRET}@db/legacy`, /scheme must be mysql/],
    ['the mysqlx scheme', `mysqlx://app:${SECRET}@db/legacy`, /scheme must be mysql/],
    ['a JDBC URL', `jdbc:mysql://app:${SECRET}@db:3306/legacy`, /malformed/],
    ['a bare host and database', `app:${PASSWORD}@db/legacy`, /malformed/],
    ['just a password', PASSWORD, /malformed/],
    ['a URL without user info', 'mysql://db:3306/legacy', /no user name/],
    ['a URL without a user', `mysql://:${SECRET}@db/legacy`, /no user name/],
    ['a URL without a host', `mysql://app:${SECRET}@/legacy`, /no host/],
    ['a URL without a database', `mysql://app:${SECRET}@db:3306`, /no database name/],
    ['a URL with a fragment', `mysql://app:${SECRET}@db/legacy#x`, /malformed/],
    ['bad percent-encoding in the URL password', `mysql://app:${SECRET}%zz@db/legacy`, /invalid percent-encoding/],
    ['a URL password with a raw slash', `mysql://app:${SECRET}/x@db/legacy`, /no user name/],
    ['a URL with a bad port', `mysql://app:${SECRET}@db:99999/legacy`, /port must be a number/],
  ])('rejects %s', (_case, dsn, message) => {
    expectRejected(dsn, message);
  });

  it.each([
    'allowAllFiles',
    'multiStatements',
    'allowCleartextPasswords',
    'allowOldPasswords',
    'interpolateParams',
    'readTimeout',
  ])('rejects the parameter %s and names it', (param) => {
    expectRejected(
      `app:${PASSWORD}@tcp(db)/legacy?charset=utf8mb4&${param}=true`,
      new RegExp(`parameter ${param} is not supported`),
    );
  });

  it('rejects unknown parameters in the URL form too', () => {
    expectRejected(
      `mysql://app:${SECRET}@db/legacy?multiStatements=true`,
      /parameter multiStatements is not supported/,
    );
  });

  it('rejects parameter names in another case', () => {
    expectRejected(`app:${PASSWORD}@tcp(db)/legacy?TLS=true`, /parameter TLS is not supported/);
  });

  it.each(['timeout=5s&timeout=1s', 'tls=true&tls=false', 'charset=utf8&charset=latin1'])(
    'rejects the duplicated parameters %s',
    (params) => {
      expectRejected(`app:${PASSWORD}@tcp(db)/legacy?${params}`, /is given more than once/);
    },
  );

  it.each(['yes', 'TRUE', '1', '', 'custom'])('rejects tls=%j', (tls) => {
    expectRejected(
      `app:${PASSWORD}@tcp(db)/legacy?tls=${tls}`,
      /tls must be one of true, skip-verify, preferred, false/,
    );
  });

  it('rejects tls given without a value', () => {
    expectRejected(`app:${PASSWORD}@tcp(db)/legacy?tls`, /tls must be one of/);
  });

  it.each(['5', '-5s', '5 s', 'abc', '', '5sec', '1d', '.s'])('rejects timeout=%j', (timeout) => {
    expectRejected(`app:${PASSWORD}@tcp(db)/legacy?timeout=${timeout}`, /timeout must be a duration/);
  });

  it('rejects bad percent-encoding in an honoured parameter', () => {
    expectRejected(`app:${PASSWORD}@tcp(db)/legacy?timeout=5%zz`, /timeout has invalid percent-encoding/);
  });

  it.each([
    // The password was meant to be everything before the unix network; the last @tcp( sits inside it.
    ['Go form', `app:x@tcp(db)/legacy?${SECRET}=1@unix(/tmp/mysql.sock)/legacy`],
    // An unencoded '/' and '?' in a URL password move the split.
    ['URL form', `mysql://app:x@db/legacy?${SECRET}=1@other-db/legacy`],
  ])('does not name a parameter that may be part of the password (%s)', (_form, dsn) => {
    expectRejected(dsn, /parameter is not supported/);
  });

  it('does not name a parameter whose name contains the password', () => {
    expectRejected(`app:${SECRET}@tcp(db)/legacy?x${SECRET}x=1`, /parameter is not supported/);
  });

  it('reads a scheme-looking user as a scheme, so the user must add mysql:// first', () => {
    expectRejected(`app://${SECRET}@tcp(db)/legacy`, /scheme must be mysql/);
    expect(parseDsn(`mysql://app://${SECRET}@tcp(db)/legacy`).password).toBe(`//${SECRET}`);
  });
});

describe('parseDsn, PostgreSQL URL', () => {
  it.each(['postgres', 'postgresql', 'PostgreSQL'])(
    'takes apart a %s:// URL, percent-decoding user and password',
    (scheme) => {
      const parsed = parseDsn(
        `${scheme}://app%40corp:s3cret%2F%40%3A@db.internal:5433/legacy%20gw?sslmode=verify-full`,
      );

      expect(parsed).toEqual({
        engine: 'postgres',
        user: 'app@corp',
        password: 's3cret/@:',
        host: 'db.internal',
        port: 5433,
        database: 'legacy gw',
        connectTimeoutMs: 10_000,
        sslmode: 'verify-full',
      });
    },
  );

  it("defaults the port to 5432, the timeout to 10 s and sslmode to prefer (libpq's and pgx's default)", () => {
    expect(parseDsn('postgres://app@10.0.0.5/legacy')).toEqual({
      engine: 'postgres',
      user: 'app',
      password: '',
      host: '10.0.0.5',
      port: 5432,
      database: 'legacy',
      connectTimeoutMs: 10_000,
      sslmode: 'prefer',
    });
  });

  it('accepts a bracketed IPv6 host and returns it unbracketed', () => {
    expect(parseDsn('postgres://app:pw@[::1]:6432/legacy')).toMatchObject({ host: '::1', port: 6432 });
  });

  it.each(['disable', 'prefer', 'require', 'verify-ca', 'verify-full'] as const)('honours sslmode=%s', (sslmode) => {
    expect(parseDsn(`postgres://app:pw@db/legacy?sslmode=${sslmode}`)).toMatchObject({ sslmode });
  });

  it.each([
    ['3', 3_000],
    ['10', 10_000],
    ['60', 10_000],
    ['0', 10_000],
  ])('reads connect_timeout=%s (seconds) as %d ms, capped at 10 s', (seconds, ms) => {
    expect(parseDsn(`postgres://app:pw@db/legacy?connect_timeout=${seconds}`).connectTimeoutMs).toBe(ms);
  });

  it('accepts a database name of 63 bytes', () => {
    expect(parseDsn(`postgres://app:pw@db/${'d'.repeat(63)}`).database).toHaveLength(63);
  });

  it.each([
    ['a missing user', `postgres://:${SECRET}@db/legacy`, /no user name/],
    ['no user info', 'postgres://db:5432/legacy', /no user name/],
    ['a missing host (a unix socket to libpq)', `postgres://app:${SECRET}@/legacy`, /no host/],
    ['a socket path as the host', `postgres://app:${SECRET}@%2Fvar%2Frun%2Fpostgresql/legacy`, /not a valid host/],
    ['several hosts', `postgres://app:${SECRET}@db1,db2/legacy`, /not a valid host/],
    ['a missing database', `postgres://app:${SECRET}@db:5432`, /no database name/],
    ['an empty database', `postgres://app:${SECRET}@db:5432/`, /no database name/],
    ['a database name over 63 bytes', `postgres://app:${SECRET}@db/${'é'.repeat(32)}`, /longer than 63 bytes/],
    ['a bad port', `postgres://app:${SECRET}@db:0/legacy`, /port must be a number/],
    ['bad percent-encoding in the password', `postgres://app:${SECRET}%zz@db/legacy`, /invalid percent-encoding/],
    ['a fragment', `postgres://app:${SECRET}@db/legacy#x`, /malformed/],
    ['the Go network form', `postgres://app:${SECRET}@tcp(db:5432)/legacy`, /network must be tcp/],
    [
      'an unknown sslmode',
      `postgres://app:${SECRET}@db/legacy?sslmode=allow`,
      /sslmode must be one of disable, prefer, require, verify-ca, verify-full/,
    ],
    ['sslmode in another case', `postgres://app:${SECRET}@db/legacy?sslmode=REQUIRE`, /sslmode must be one of/],
    [
      'a fractional connect_timeout',
      `postgres://app:${SECRET}@db/legacy?connect_timeout=1.5`,
      /whole number of seconds/,
    ],
    [
      'a Go duration as connect_timeout',
      `postgres://app:${SECRET}@db/legacy?connect_timeout=5s`,
      /whole number of seconds/,
    ],
    [
      'a duplicated sslmode',
      `postgres://app:${SECRET}@db/legacy?sslmode=require&sslmode=disable`,
      /given more than once/,
    ],
    [
      'the keyword=value form',
      `host=db user=app password=${SECRET} dbname=legacy sslmode=disable`,
      /keyword=value form/,
    ],
  ])('rejects %s', (_case, dsn, message) => {
    expectRejected(dsn, message);
  });

  it.each([
    'options',
    'sslrootcert',
    'sslcert',
    'sslkey',
    'host',
    'hostaddr',
    'port',
    'dbname',
    'user',
    'password',
    'application_name',
    'target_session_attrs',
    'sslnegotiation',
    'TimeZone',
    'timeout',
    'tls',
  ])('rejects the parameter %s and names it', (param) => {
    expectRejected(
      `postgres://app:${SECRET}@db/legacy?sslmode=require&${param}=x`,
      new RegExp(`parameter ${param} is not supported \\(allowed: sslmode, connect_timeout\\)`),
    );
  });

  it('does not name a parameter that may be part of the password', () => {
    expectRejected(`postgres://app:x@db/legacy?${SECRET}=1@other-db/legacy`, /parameter is not supported/);
  });

  it('rejects the MySQL parameters on a PostgreSQL URL and the PostgreSQL ones on a MySQL DSN', () => {
    expectRejected(`postgres://app:${SECRET}@db/legacy?tls=true`, /parameter tls is not supported/);
    expectRejected(`app:${PASSWORD}@tcp(db)/legacy?sslmode=require`, /parameter sslmode is not supported/);
  });
});

describe('describeDsn', () => {
  it('shows host, port and database of a PostgreSQL DSN only', () => {
    const described = describeDsn(parseDsn(`postgres://app:${SECRET}@db.internal/legacy?sslmode=require`));

    expect(described).toEqual({ host: 'db.internal', port: 5432, database: 'legacy' });
  });

  it('shows host, port and database only', () => {
    const parsed = parseDsn(`app:${PASSWORD}@tcp(db.internal:3307)/legacy?tls=true`);

    const described = describeDsn(parsed);

    expect(described).toEqual({ host: 'db.internal', port: 3307, database: 'legacy' });
    expect(JSON.stringify(described)).not.toContain(SECRET);
  });
});

describe('parseDsn properties', () => {
  it('returns any password of the Go form unchanged', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (password) => {
        expect(parseDsn(`app:${password}@tcp(db:3307)/legacy`)).toMatchObject({ user: 'app', password, port: 3307 });
      }),
    );
  });

  it('either parses or throws a 400 that does not contain the password, for any input around it', () => {
    // The marker is a valid parameter name, so a parameter-echo leak would show.
    const password = fc
      .tuple(fc.constantFrom('', '=1', '=1&', '&'), fc.string({ maxLength: 40 }))
      .map(([separator, s]) => `Zq9x${separator}${s}`);
    const anything = fc.string({ maxLength: 60, unit: 'binary' });
    const before = fc.oneof(
      anything.map((a) => `${a}:`),
      fc.constantFrom(
        'app:',
        'mysql://app:',
        'postgres://app:',
        'app:pw@tcp(db)/legacy?',
        'mysql://app:pw@db/legacy?',
        'postgresql://app:pw@db/legacy?',
      ),
    );
    const after = fc.oneof(
      anything,
      anything.map((a) => `db)/legacy?${a}`),
      anything.map((a) => `db:${a})/${a}`),
      anything.map((a) => `db)/legacy?timeout=${a}&tls=${a}`),
      anything.map((a) => `db/legacy?${a}`),
    );
    fc.assert(
      fc.property(before, password, fc.constantFrom('@tcp(', '@', '@unix('), after, (head, secret, sep, tail) => {
        let error: unknown;
        try {
          parseDsn(`${head}${secret}${sep}${tail}`);
        } catch (e) {
          error = e;
        }
        if (error === undefined) return;
        expect(error).toBeInstanceOf(ProxyApiError);
        expect((error as ProxyApiError).httpStatus).toBe(400);
        expect((error as ProxyApiError).message).not.toContain('Zq9x');
      }),
      { numRuns: 1000 },
    );
  });
});
