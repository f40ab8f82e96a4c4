import { DomainError } from '@gateway/lib/errors';
import { SAMPLE_IMAGES } from '../../test/support/sample-images';
import { checkImages, sniffImageType } from './images';

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
  ])('refuses case %#', (images, message) => {
    expect(failure(images).message).toBe(message);
  });
});
