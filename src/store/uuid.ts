import { createHash } from 'node:crypto';

/** Namespace of the runner's name-based UUIDs (a fixed random UUID). */
const RUNNER_UUID_NAMESPACE = 'b3d5a2f4-6c1e-4d9a-8f0b-2a7c9e4d1f63';

/** A name-based UUID (RFC 9562 version 5: SHA-1 of namespace + name): the same name, the same id. */
export function uuidV5(name: string, namespace: string = RUNNER_UUID_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  const b = hash.subarray(0, 16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x50;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
