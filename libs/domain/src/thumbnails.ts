import { DomainError, notFound } from './errors';

/**
 * Thumbnails of image file values: square, centre cover-crop, WebP, one of a fixed set
 * of sizes. These are the rules; reading, decoding and storing images are the edges' job.
 */

/** The sizes a thumbnail may have, in pixels (width = height). Anything else names nothing: 404. */
export const THUMBNAIL_SIZES = [50, 100, 200, 400, 800] as const;
export type ThumbnailSize = (typeof THUMBNAIL_SIZES)[number];

/** Every thumbnail is WebP: small, keeps transparency, read by every current browser. */
export const THUMBNAIL_FORMAT = 'webp';
export const THUMBNAIL_MIME = 'image/webp';

/** The first value of this property is an entity's thumbnail source (interface: "photo"). */
export const PHOTO_PROPERTY = 'photo';

/**
 * Decoded formats a thumbnail is made from (sharp's names; `heif` is what it calls AVIF, and HEIC
 * too where the library was built with it — sharp's prebuilt binary reads AVIF only).
 */
export const THUMBNAIL_SOURCE_FORMATS = ['jpeg', 'png', 'webp', 'gif', 'heif'] as const;

/** Declared MIME types a thumbnail may be asked of; the bytes must then decode as one of the formats. */
export const THUMBNAIL_SOURCE_TYPES = ['image/jpeg', 'image/pjpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'image/heic', 'image/heif'] as const;

/** The most pixels a source may have (width × height): a decompression bomb is refused unread. */
export const MAX_SOURCE_PIXELS = 50_000_000;
/** The longest side a source may have; beyond it no camera or scan goes, only a crafted header. */
export const MAX_SOURCE_SIDE = 20_000;

/** The size named in a path (`/thumbnail/200`), exactly as listed: anything else is 404. */
export function parseThumbnailSize(text: string): ThumbnailSize {
  const size = THUMBNAIL_SIZES.find((candidate) => String(candidate) === text);
  if (size === undefined) throw notFound(`No thumbnail size ${text.slice(0, 20)}; sizes are ${THUMBNAIL_SIZES.join(', ')}.`);
  return size;
}

/**
 * Where a thumbnail lives: a sibling of the original's key, never under it (an S3 store such as
 * MinIO cannot hold `a/b/c` and `a/b/c/d` at once).
 */
export function thumbnailKey(originalKey: string, size: ThumbnailSize): string {
  return `${originalKey}.thumbnail-${size}.${THUMBNAIL_FORMAT}`;
}

/** Every key a file value's thumbnails may have: what is removed with the value. */
export function thumbnailKeys(originalKey: string): string[] {
  return THUMBNAIL_SIZES.map((size) => thumbnailKey(originalKey, size));
}

/** The file name a thumbnail is downloaded under: the original's stem, the size, `.webp`. */
export function thumbnailFilename(filename: string, size: ThumbnailSize): string {
  const dot = filename.lastIndexOf('.');
  const stem = dot > 0 ? filename.slice(0, dot) : filename;
  return `${stem}-${size}.${THUMBNAIL_FORMAT}`;
}

/** Why a source cannot be made into a thumbnail: 422, the same for every reason. */
export const unthumbnailable = (message: string) => new DomainError('unprocessable', message);

/** Refuses a file whose declared type is not an image type we make thumbnails of (422). */
export function assertThumbnailSourceType(filetype: string): void {
  const mime = filetype.split(';', 1)[0]!.trim().toLowerCase();
  if (!(THUMBNAIL_SOURCE_TYPES as readonly string[]).includes(mime)) {
    throw unthumbnailable(`A thumbnail is made of an image (${THUMBNAIL_SOURCE_TYPES.join(', ')}); this file is ${filetype.slice(0, 100)}.`);
  }
}

/** What the decoder read of a source's header, before any pixel was decoded. */
export interface SourceImage {
  format: string;
  /** As displayed, i.e. after the EXIF orientation is applied. */
  width: number;
  height: number;
}

/**
 * Refuses a source whose bytes are not a supported image, or whose header declares more pixels
 * or a longer side than allowed (422): checked on the header alone, so a bomb is never decoded.
 */
export function assertThumbnailSource(image: SourceImage): void {
  if (!(THUMBNAIL_SOURCE_FORMATS as readonly string[]).includes(image.format)) {
    throw unthumbnailable(`The file's bytes are ${image.format.slice(0, 20)}, not an image a thumbnail is made of (${THUMBNAIL_SOURCE_FORMATS.join(', ')}).`);
  }
  const { width, height } = image;
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) throw unthumbnailable('The image has no dimensions.');
  if (width > MAX_SOURCE_SIDE || height > MAX_SOURCE_SIDE || width * height > MAX_SOURCE_PIXELS) {
    throw unthumbnailable(`The image is ${width}×${height}: at most ${MAX_SOURCE_SIDE} pixels a side and ${MAX_SOURCE_PIXELS} in all.`);
  }
}

/** A region of an image, in pixels. */
export interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * The centred square a cover-crop keeps: the full shorter side, centred on the longer one (odd
 * remainders leave the extra pixel on the right or bottom). Cropping before scaling keeps the
 * work bounded by the source's own pixels, whatever its aspect ratio.
 */
export function centredSquare(width: number, height: number): Region {
  const side = Math.min(width, height);
  return { left: Math.floor((width - side) / 2), top: Math.floor((height - side) / 2), width: side, height: side };
}
