import { z } from 'zod';

/**
 * Text that will be stored must be something Postgres can store: a `text`
 * column refuses the NUL character, and UTF-8 cannot encode a lone surrogate
 * (which a JSON `\ud800` escape produces). Refused at the boundary, such text
 * costs the caller a 400 naming the field, instead of a record that no batch
 * can write.
 */
export const STORABLE_TEXT_MESSAGE = 'must not contain NUL characters or lone surrogates (text must be valid UTF-8)';

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
}

/** A string schema that refuses text Postgres cannot store; chain length and trim checks after it. */
export function storableText(message: string = STORABLE_TEXT_MESSAGE) {
  return z.string().refine(isStorableText, { error: message });
}
