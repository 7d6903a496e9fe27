import {
  MAX_SOURCE_PIXELS,
  MAX_SOURCE_SIDE,
  THUMBNAIL_SIZES,
  assertThumbnailSource,
  assertThumbnailSourceType,
  centredSquare,
  parseThumbnailSize,
  thumbnailFilename,
  thumbnailKey,
  thumbnailKeys,
  type SourceImage,
} from '@entia/domain';
import { thrown } from './fixtures';

describe('parseThumbnailSize: only the listed sizes name a thumbnail', () => {
  it('offers at least 50, 200 and 400', () => {
    expect(THUMBNAIL_SIZES).toEqual(expect.arrayContaining([50, 200, 400]));
  });

  it.each(THUMBNAIL_SIZES.map((size) => [String(size), size]))('%s is size %d', (text, size) => {
    expect(parseThumbnailSize(text)).toBe(size);
  });

  it.each(['123', '0', '-200', '+200', '0200', '200.0', '2e2', ' 200', '200 ', '', 'abc', '99999999999999999999', '0x32'])('%j is 404', (text) => {
    expect(thrown(() => parseThumbnailSize(text)).kind).toBe('not-found');
  });
});

describe('thumbnailKey: a sibling of the original, never under it', () => {
  it.each(THUMBNAIL_SIZES.map((size) => [size]))('size %d', (size) => {
    const key = thumbnailKey('db/e/v', size);
    expect(key).toBe(`db/e/v.thumbnail-${size}.webp`);
    expect(key.startsWith('db/e/v/')).toBe(false);
  });

  it('thumbnailKeys lists one key per size, all distinct', () => {
    const keys = thumbnailKeys('db/e/v');
    expect(keys).toHaveLength(THUMBNAIL_SIZES.length);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('thumbnailFilename', () => {
  it.each([
    ['cat.png', 200, 'cat-200.webp'],
    ['holiday.photo.JPG', 50, 'holiday.photo-50.webp'],
    ['noextension', 400, 'noextension-400.webp'],
    ['.hidden', 100, '.hidden-100.webp'],
  ] as const)('%s at %d is %s', (name, size, expected) => {
    expect(thumbnailFilename(name, size)).toBe(expected);
  });
});

describe('assertThumbnailSourceType: the declared type must be an image type (else 422)', () => {
  it.each(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'image/heic', 'IMAGE/PNG', 'image/jpeg; charset=binary'])('%s is accepted', (type) => {
    expect(() => assertThumbnailSourceType(type)).not.toThrow();
  });

  it.each(['text/plain', 'application/pdf', 'image/svg+xml', 'application/octet-stream', 'image/tiff', 'text/html', ''])('%j is 422', (type) => {
    expect(thrown(() => assertThumbnailSourceType(type)).kind).toBe('unprocessable');
  });
});

describe('assertThumbnailSource: what the header says decides before any pixel is decoded', () => {
  const image = (format: string, width: number, height: number): SourceImage => ({ format, width, height });

  it.each([
    ['a JPEG photo', image('jpeg', 4000, 3000)],
    ['a PNG', image('png', 1, 1)],
    ['a WebP', image('webp', 800, 800)],
    ['a GIF', image('gif', 320, 240)],
    ['an AVIF', image('heif', 1920, 1080)],
    ['a long side at the limit', image('png', MAX_SOURCE_SIDE, 100)],
    ['pixels at the limit', image('jpeg', 10_000, MAX_SOURCE_PIXELS / 10_000)],
  ])('%s is accepted', (_, source) => {
    expect(() => assertThumbnailSource(source)).not.toThrow();
  });

  it.each([
    ['an SVG (scripts, external references)', image('svg', 100, 100)],
    ['a PDF', image('pdf', 100, 100)],
    ['a TIFF', image('tiff', 100, 100)],
    ['a decompression bomb: a PNG declaring 30000×30000', image('png', 30_000, 30_000)],
    ['huge dimensions: a JPEG declaring 60000×60000', image('jpeg', 60_000, 60_000)],
    ['one side too long', image('png', MAX_SOURCE_SIDE + 1, 1)],
    ['too many pixels', image('jpeg', 10_000, MAX_SOURCE_PIXELS / 10_000 + 1)],
    ['no width', image('png', 0, 100)],
    ['a fractional height', image('png', 100, 1.5)],
  ])('%s is 422', (_, source) => {
    expect(thrown(() => assertThumbnailSource(source)).kind).toBe('unprocessable');
  });
});

describe('centredSquare: the cover-crop of a square thumbnail', () => {
  it.each([
    ['landscape', 400, 300, { left: 50, top: 0, width: 300, height: 300 }],
    ['portrait', 300, 400, { left: 0, top: 50, width: 300, height: 300 }],
    ['square', 200, 200, { left: 0, top: 0, width: 200, height: 200 }],
    ['odd remainder: the extra pixel on the right', 101, 100, { left: 0, top: 0, width: 100, height: 100 }],
    ['odd remainder of 3', 103, 100, { left: 1, top: 0, width: 100, height: 100 }],
    ['a one-pixel line', 20_000, 1, { left: 9_999, top: 0, width: 1, height: 1 }],
  ])('%s %d×%d', (_, width, height, region) => {
    expect(centredSquare(width, height)).toEqual(region);
  });
});
