import sharp from 'sharp';

/**
 * The image-processing edge of thumbnails, over sharp (libvips). What may be made into
 * a thumbnail, and of what size, is the domain's (`libs/domain/src/thumbnails.ts`); this reads a
 * header and renders pixels, within the bounds it is given.
 */

// libvips keeps recent operations and decoded images for reuse; each thumbnail is made once, so
// the cache would only hold memory after the request is gone.
sharp.cache(false);

/** sharp could not read the bytes as an image (not one, truncated, corrupt) or gave up on it. */
export class UnreadableImageError extends Error {
  override readonly name = 'UnreadableImageError';
}

/** The bounds one rendering runs within. */
export interface RenderLimits {
  /** Pixels (width × height) sharp refuses to decode beyond: a second guard after the header check. */
  maxPixels: number;
  /** sharp's own time limit on the rendering, whole seconds. */
  timeoutSeconds: number;
}

// Abort on corrupt or truncated pixel data, not on mere warnings (common in camera JPEGs). Only the
// first frame of an animation or the first page of a multi-page file is read.
const INPUT = { failOn: 'error', pages: 1, page: 0 } as const;

/** Runs a sharp call, turning whatever it throws into `UnreadableImageError`. */
async function decoding<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UnreadableImageError(reason.slice(0, 200), { cause: error });
  }
}

/**
 * The format and displayed dimensions of an image (its EXIF orientation applied), read from its
 * header alone: no pixel is decoded, so a decompression bomb costs nothing here.
 */
export function imageInfo(bytes: Buffer): Promise<{ format: string; width: number; height: number }> {
  return decoding(async () => {
    const meta = await sharp(bytes, { ...INPUT, limitInputPixels: false }).metadata();
    const upright = meta.autoOrient ?? meta;
    return { format: meta.format ?? 'unknown', width: upright.width ?? 0, height: upright.height ?? 0 };
  });
}

/**
 * The `region` of the upright image (a square), scaled to `size`×`size` and encoded as WebP.
 * Cropping first bounds the work by the source's own pixels whatever its aspect ratio; a region
 * smaller than `size` is scaled up.
 */
export function renderThumbnail(bytes: Buffer, region: { left: number; top: number; width: number; height: number }, size: number, limits: RenderLimits): Promise<Buffer> {
  return decoding(() =>
    sharp(bytes, { ...INPUT, autoOrient: true, limitInputPixels: limits.maxPixels })
      .extract(region)
      .resize(size, size, { fit: 'cover', position: 'centre' })
      .webp({ quality: 80 })
      .timeout({ seconds: limits.timeoutSeconds })
      .toBuffer(),
  );
}
