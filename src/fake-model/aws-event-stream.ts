import { crc32 } from 'node:zlib';

/**
 * The binary `application/vnd.amazon.eventstream` framing that Bedrock's
 * InvokeModelWithResponseStream answers with. Each message is
 *
 *     total length (u32 BE) · headers length (u32 BE) · CRC32 of those 8 bytes ·
 *     headers · payload · CRC32 of everything before
 *
 * and each header is `name length (u8) · name · type (u8, 7 = string) · value length (u16 BE) · value`.
 * A model event travels as an `event` message of type `chunk` whose JSON payload is
 * `{"bytes": "<base64 of the Messages API event JSON>"}`.
 */

/** Header value type 7: a UTF-8 string. */
const STRING_TYPE = 7;

function encodeHeaders(headers: Readonly<Record<string, string>>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = Buffer.from(name, 'utf8');
    const v = Buffer.from(value, 'utf8');
    const head = Buffer.alloc(1 + n.length + 1 + 2);
    head.writeUInt8(n.length, 0);
    n.copy(head, 1);
    head.writeUInt8(STRING_TYPE, 1 + n.length);
    head.writeUInt16BE(v.length, 2 + n.length);
    parts.push(head, v);
  }
  return Buffer.concat(parts);
}

/** One event-stream message with string headers and a payload. */
export function encodeEventStreamMessage(headers: Readonly<Record<string, string>>, payload: Buffer): Buffer {
  const h = encodeHeaders(headers);
  const total = 12 + h.length + payload.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(h.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const body = Buffer.concat([prelude, h, payload]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body), 0);
  return Buffer.concat([body, crc]);
}

/** A Bedrock `chunk` event carrying one Messages API stream event (its JSON text). */
export function bedrockChunk(eventJson: string): Buffer {
  const payload = Buffer.from(JSON.stringify({ bytes: Buffer.from(eventJson, 'utf8').toString('base64') }), 'utf8');
  return encodeEventStreamMessage(
    { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' },
    payload,
  );
}

/** A Bedrock stream exception (e.g. `throttlingException`, `modelStreamErrorException`). */
export function bedrockException(exceptionType: string, message: string): Buffer {
  return encodeEventStreamMessage(
    { ':exception-type': exceptionType, ':content-type': 'application/json', ':message-type': 'exception' },
    Buffer.from(JSON.stringify({ message }), 'utf8'),
  );
}

/** One decoded event-stream message. */
export interface EventStreamMessage {
  headers: Record<string, string>;
  payload: Buffer;
}

/**
 * Decodes a buffer of whole event-stream messages (the inverse of {@link encodeEventStreamMessage}).
 *
 * @throws Error when a length or a CRC does not match, or a header is not a string
 */
export function decodeEventStream(buf: Buffer): EventStreamMessage[] {
  const out: EventStreamMessage[] = [];
  let at = 0;
  while (at < buf.length) {
    const total = buf.readUInt32BE(at);
    const headersLength = buf.readUInt32BE(at + 4);
    if (buf.readUInt32BE(at + 8) !== crc32(buf.subarray(at, at + 8))) throw new Error('event stream: bad prelude CRC');
    const end = at + total;
    if (buf.readUInt32BE(end - 4) !== crc32(buf.subarray(at, end - 4)))
      throw new Error('event stream: bad message CRC');
    const headers: Record<string, string> = {};
    let h = at + 12;
    const headersEnd = h + headersLength;
    while (h < headersEnd) {
      const nameLength = buf.readUInt8(h);
      const name = buf.subarray(h + 1, h + 1 + nameLength).toString('utf8');
      const type = buf.readUInt8(h + 1 + nameLength);
      if (type !== STRING_TYPE) throw new Error(`event stream: header ${name} has type ${type}, not string`);
      const valueLength = buf.readUInt16BE(h + 2 + nameLength);
      headers[name] = buf.subarray(h + 4 + nameLength, h + 4 + nameLength + valueLength).toString('utf8');
      h += 4 + nameLength + valueLength;
    }
    out.push({ headers, payload: buf.subarray(headersEnd, end - 4) });
    at = end;
  }
  return out;
}
