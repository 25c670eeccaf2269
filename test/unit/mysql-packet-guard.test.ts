import { describe, expect, it } from 'vitest';
import { type OversizePacketError, PacketGuard } from '#functions/import-legacygw/legacy-connection';

const MAX = 0xffffff;

function header(length: number, seq = 0): Buffer {
  const b = Buffer.alloc(4);
  b.writeUIntLE(length, 0, 3);
  b[3] = seq;
  return b;
}

function guard(max: number) {
  const refused: OversizePacketError[] = [];
  const g = new PacketGuard((e) => refused.push(e));
  g.maxPacketBytes = max;
  return { g, refused };
}

describe('the MySQL packet guard', () => {
  it('passes packets within the bound, whatever the chunking, byte by byte included', () => {
    const stream = Buffer.concat([header(3), Buffer.from('abc'), header(0), header(10), Buffer.alloc(10)]);
    for (const size of [1, 2, 3, 5, stream.length]) {
      const { g, refused } = guard(10);
      for (let at = 0; at < stream.length; at += size) expect(g.accept(stream.subarray(at, at + size))).toBe(true);
      expect(refused).toEqual([]);
    }
  });

  it('refuses from the header alone: the payload is never needed', () => {
    const { g, refused } = guard(1024);
    expect(g.accept(Buffer.concat([header(5), Buffer.alloc(5)]))).toBe(true);
    // The header arrives in two chunks; the second completes it.
    expect(g.accept(header(1025).subarray(0, 2))).toBe(true);
    expect(g.accept(header(1025).subarray(2))).toBe(false);
    expect(refused.map((e) => [e.code, e.bytes])).toEqual([['IMPORT_OVERSIZE_PACKET', 1025]]);
    // Once refused, nothing more passes.
    expect(g.accept(Buffer.alloc(1))).toBe(false);
    expect(refused).toHaveLength(1);
  });

  it('adds up a chain of 16 MiB packets, and a shorter packet ends the chain', () => {
    const { g, refused } = guard(MAX + 100);
    // One full packet continued by a 100-byte one: exactly the bound.
    expect(g.accept(Buffer.concat([header(MAX), Buffer.alloc(MAX), header(100), Buffer.alloc(100)]))).toBe(true);
    // The chain ended: a new 100-byte packet starts from zero.
    expect(g.accept(Buffer.concat([header(100), Buffer.alloc(100)]))).toBe(true);
    expect(refused).toEqual([]);
    // A full packet continued by a 101-byte one passes the bound.
    expect(g.accept(Buffer.concat([header(MAX), Buffer.alloc(MAX)]))).toBe(true);
    expect(g.accept(header(101))).toBe(false);
    expect(refused.map((e) => e.bytes)).toEqual([MAX + 101]);
  });

  it('follows a raised bound from the next header on', () => {
    const { g, refused } = guard(10);
    expect(g.accept(Buffer.concat([header(10), Buffer.alloc(10)]))).toBe(true);
    g.maxPacketBytes = 100;
    expect(g.accept(Buffer.concat([header(100), Buffer.alloc(100)]))).toBe(true);
    expect(refused).toEqual([]);
  });
});
