/**
 * Pixel dimensions of an image read from its header (PNG, JPEG, GIF, WebP), without decoding it.
 */

/** Width and height in pixels. */
export interface ImageDimensions {
  width: number;
  height: number;
}

function pngSize(buf: Buffer): ImageDimensions | undefined {
  // Signature (8 bytes), IHDR length and type (8), then width and height (big-endian).
  if (buf.length < 24 || buf.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

function gifSize(buf: Buffer): ImageDimensions | undefined {
  if (buf.length < 10) return undefined;
  return { width: buf.readUInt16LE(6), height: buf.readUInt16LE(8) };
}

/** JPEG: the first start-of-frame marker (SOF0–SOF15 but DHT, JPG and DAC) holds the size. */
function jpegSize(buf: Buffer): ImageDimensions | undefined {
  let pos = 2;
  while (pos + 9 < buf.length) {
    if (buf[pos] !== 0xff) return undefined;
    const marker = buf[pos + 1]!;
    if (marker === 0xff) {
      pos += 1;
      continue;
    }
    const len = buf.readUInt16BE(pos + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: buf.readUInt16BE(pos + 5), width: buf.readUInt16BE(pos + 7) };
    }
    pos += 2 + len;
  }
  return undefined;
}

function webpSize(buf: Buffer): ImageDimensions | undefined {
  if (buf.length < 30) return undefined;
  const chunk = buf.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { width: 1 + buf.readUIntLE(24, 3), height: 1 + buf.readUIntLE(27, 3) };
  if (chunk === 'VP8L') {
    const bits = buf.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === 'VP8 ') return { width: buf.readUInt16LE(26) & 0x3fff, height: buf.readUInt16LE(28) & 0x3fff };
  return undefined;
}

/** The image's size from its header, or undefined when the header is not one this reads. */
export function imageDimensions(buf: Buffer, mediaType: string): ImageDimensions | undefined {
  switch (mediaType) {
    case 'image/png':
      return pngSize(buf);
    case 'image/jpeg':
      return jpegSize(buf);
    case 'image/gif':
      return gifSize(buf);
    case 'image/webp':
      return webpSize(buf);
    default:
      return undefined;
  }
}
