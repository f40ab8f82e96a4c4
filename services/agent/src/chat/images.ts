import { createHash } from 'node:crypto';
import { DomainError } from '@gateway/lib/errors';
import type { StoredImage } from '../db/tables/messages';

/**
 * Images sent with a chat message (docs/api.md#agent-api: base64 image data). Each is
 * checked before anything goes upstream: well-formed base64 (or a data URL of
 * it), a supported type recognised by its first bytes (the data URL's
 * declared type must agree), within the size limit, and no more than the
 * count limit. They travel upstream as OpenAI `image_url` parts (data URLs);
 * the session keeps only their type, size and SHA-256.
 */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

export interface CheckedImage extends StoredImage {
  media_type: ImageType;
  /** `data:<type>;base64,<data>`, what the upstream receives. */
  dataUrl: string;
}

export interface ImageLimits {
  maxCount: number;
  maxBytes: number;
}

const startsWith = (bytes: Buffer, signature: readonly number[], offset = 0) =>
  bytes.length >= offset + signature.length && signature.every((byte, index) => bytes[offset + index] === byte);
const ascii = (text: string) => [...text].map((character) => character.charCodeAt(0));

/** The type by magic bytes; undefined for anything else. */
export function sniffImageType(bytes: Buffer): ImageType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  return undefined;
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function invalid(index: number, problem: string): DomainError {
  return new DomainError('validation', `images[${index}]: ${problem}`, { field: `images[${index}]` });
}

function checkImage(text: string, index: number, limits: ImageLimits): CheckedImage {
  const dataUrl = DATA_URL.exec(text.trim());
  const declared = dataUrl?.[1]?.toLowerCase();
  const payload = (dataUrl?.[2] ?? text).replace(/\s+/g, '');
  if (payload.length === 0 || payload.length % 4 !== 0 || !BASE64.test(payload)) {
    throw invalid(index, 'must be base64 image data, or a data URL such as data:image/png;base64,...');
  }
  // Base64 is 4 characters per 3 bytes: refuse an oversized image before decoding it.
  const decodedLength = (payload.length / 4) * 3 - (payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0);
  if (decodedLength > limits.maxBytes) {
    throw invalid(index, `is ${decodedLength} bytes; the limit is ${limits.maxBytes} bytes per image`);
  }
  const bytes = Buffer.from(payload, 'base64');
  const mediaType = sniffImageType(bytes);
  if (!mediaType) throw invalid(index, `is not an image of a supported type (${IMAGE_TYPES.join(', ')})`);
  if (declared !== undefined && declared !== mediaType) {
    throw invalid(index, `is declared as ${declared} but its data is ${mediaType}`);
  }
  return {
    media_type: mediaType,
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    dataUrl: `data:${mediaType};base64,${payload}`,
  };
}

export function checkImages(images: readonly string[], limits: ImageLimits): CheckedImage[] {
  if (images.length > limits.maxCount) {
    throw new DomainError('validation', `images: at most ${limits.maxCount} image(s) per message; ${images.length} were sent`, {
      field: 'images',
    });
  }
  return images.map((image, index) => checkImage(image, index, limits));
}
