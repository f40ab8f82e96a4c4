import { DomainError } from '@gateway/lib/errors';
import { checkImages, sniffImageType } from './images';

/** The smallest valid image of each type the agent accepts. */
export const SAMPLE_IMAGES = {
  png: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==', 'base64'),
  jpeg: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]),
  gif: Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'),
  webp: Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x1a, 0, 0, 0]), Buffer.from('WEBPVP8 ')]),
};

const limits = { maxCount: 2, maxBytes: 1024 };

function failure(images: string[]): DomainError {
  try {
    checkImages(images, limits);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected the images to be refused');
}

describe('chat images', () => {
  it.each(Object.entries(SAMPLE_IMAGES))('recognises %s by its first bytes', (name, bytes) => {
    expect(sniffImageType(bytes)).toBe(`image/${name}`);
  });

  it('accepts base64 and data URLs, and keeps only type, size and digest', () => {
    const [plain, dataUrl] = checkImages(
      [SAMPLE_IMAGES.png.toString('base64'), `data:image/gif;base64,${SAMPLE_IMAGES.gif.toString('base64')}`],
      limits,
    );
    expect(plain).toMatchObject({ media_type: 'image/png', bytes: SAMPLE_IMAGES.png.length });
    expect(plain?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(plain?.dataUrl.startsWith('data:image/png;base64,iVBOR')).toBe(true);
    expect(dataUrl?.media_type).toBe('image/gif');
  });

  it.each([
    [['not base64!'], 'images[0]: must be base64 image data, or a data URL such as data:image/png;base64,...'],
    [[Buffer.from('%PDF-1.7 a document').toString('base64')], 'images[0]: is not an image of a supported type (image/png, image/jpeg, image/gif, image/webp)'],
    [[`data:image/jpeg;base64,${SAMPLE_IMAGES.png.toString('base64')}`], 'images[0]: is declared as image/jpeg but its data is image/png'],
    [[Buffer.concat([SAMPLE_IMAGES.png, Buffer.alloc(2048)]).toString('base64')], 'images[0]: is 2118 bytes; the limit is 1024 bytes per image'],
    [['a', 'b', 'c'], 'images: at most 2 image(s) per message; 3 were sent'],
  ])('refuses %j', (images, message) => {
    expect(failure(images).message).toBe(message);
  });
});
