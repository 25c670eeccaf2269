import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type LookupFn, resolveTarget } from '#functions/import-legacygw/target';
import { ANY_HOST, parseAllowList } from '#shared/allow-list';
import { ProxyApiError } from '#shared/errors';
import { PROPERTY_RUNS } from '#test/reliability/harness';

const byte = fc.integer({ min: 0, max: 255 });
const hex16 = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));

/** Every spelling of an address in 169.254.0.0/16 or fe80::/10 that a resolver could hand back. */
const linkLocal = fc.oneof(
  fc.tuple(byte, byte).map(([c, d]) => `169.254.${c}.${d}`),
  fc.tuple(byte, byte).map(([c, d]) => `::ffff:169.254.${c}.${d}`),
  fc
    .tuple(byte, byte)
    .map(([c, d]) => `::ffff:a9fe:${((c << 8) | d).toString(16)}`)
    .chain((a) => fc.constantFrom(a, a.toUpperCase())),
  fc
    .tuple(fc.integer({ min: 0xfe80, max: 0xfebf }), fc.array(hex16, { minLength: 1, maxLength: 4 }))
    .map(([first, rest]) => `${first.toString(16)}::${rest.join(':')}`)
    .chain((a) => fc.constantFrom(a, a.toUpperCase())),
  fc.constant('fd00:ec2::254'),
  // SIIT's IPv4-translated form (RFC 6145), and NAT64 under the local-use prefix at every RFC 6052 length.
  fc.tuple(byte, byte).map(([c, d]) => `::ffff:0:169.254.${c}.${d}`),
  fc.tuple(byte, byte).map(([c, d]) => `::ffff:0:a9fe:${((c << 8) | d).toString(16)}`),
  fc.tuple(hex16, hex16, hex16, byte, byte).map(([g, h, i, c, d]) => `64:ff9b:1:${g}:${h}:${i}:169.254.${c}.${d}`),
  fc
    .tuple(hex16, byte, byte)
    .map(([g, c, d]) => `64:ff9b:1:${g}:a9:${((0xfe << 8) | c).toString(16)}:${(d << 8).toString(16)}::`),
  fc
    .tuple(byte, byte, byte)
    .map(([n, c, d]) => `64:ff9b:1:${((n << 8) | 0xa9).toString(16)}:fe:${((c << 8) | d).toString(16)}::`),
);

const ordinary = fc.oneof(
  fc.ipV4().filter((a) => !a.startsWith('169.254.')),
  fc.constantFrom('10.0.0.5', '127.0.0.1', '::1', '2001:db8::10'),
);

const lookupReturning =
  (addresses: readonly string[]): LookupFn =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

async function refusal(promise: Promise<unknown>): Promise<ProxyApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ProxyApiError);
    return error as ProxyApiError;
  }
  throw new Error('expected the target to be refused');
}

describe('resolveTarget: SSRF through the DSN host (property)', () => {
  it('refuses every link-local address given literally, in any spelling', async () => {
    await fc.assert(
      fc.asyncProperty(linkLocal, async (address) => {
        const error = await refusal(resolveTarget(address, ANY_HOST));

        expect(error.httpStatus).toBe(400);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('refuses a host name when any of its addresses is link-local, and never connects to the others', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(ordinary, { maxLength: 3 }),
        linkLocal,
        fc.nat(),
        fc.domain(),
        async (others, bad, at, name) => {
          const answers = [...others];
          answers.splice(at % (others.length + 1), 0, bad);

          const error = await refusal(resolveTarget(name, ANY_HOST, lookupReturning(answers)));

          expect(error.httpStatus).toBe(400);
          expect(error.message).not.toContain(name);
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('connects only to an address it checked, and only inside a non-empty allow-list', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(ordinary, { minLength: 1, maxLength: 4 }), fc.domain(), async (answers, name) => {
        const allowList = parseAllowList(['10.0.0.0/8']);

        const result = await resolveTarget(name, allowList, lookupReturning(answers)).catch((e: unknown) => e);

        const inside = answers.filter((a) => /^10\./.test(a));
        if (inside.length === 0) {
          expect(result).toBeInstanceOf(ProxyApiError);
          expect((result as ProxyApiError).httpStatus).toBe(400);
        } else {
          expect(result).toEqual({ address: inside[0], family: 4 });
        }
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
