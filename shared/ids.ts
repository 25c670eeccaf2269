import { randomBytes } from 'node:crypto';

// A MongoDB ObjectId: 4 bytes of seconds, 5 random bytes per process, a 3-byte counter.
// Written here rather than pulling in `bson` (~100 KB) onto every cold start for 10 lines.
const processRandom = randomBytes(5);
let counter = randomBytes(3).readUIntBE(0, 3);

/** A new 24-character lowercase hex id shaped like a MongoDB ObjectId (docs/knowledge-base-api.md). */
export function newObjectId(now: Date = new Date()): string {
  const buf = Buffer.alloc(12);
  buf.writeUInt32BE(Math.floor(now.getTime() / 1000) >>> 0, 0);
  processRandom.copy(buf, 4);
  counter = (counter + 1) % 0x1000000;
  buf.writeUIntBE(counter, 9, 3);
  return buf.toString('hex');
}

/** True for a 24-character hex id (either case). */
export function isObjectId(value: string): boolean {
  return /^[0-9a-fA-F]{24}$/.test(value);
}
