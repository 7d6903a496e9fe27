import {
  MAX_SOURCE_PIXELS,
  PHOTO_PROPERTY,
  THUMBNAIL_MIME,
  assertThumbnailSource,
  assertThumbnailSourceType,
  centredSquare,
  findValue,
  first,
  isFileValue,
  notFound,
  parseThumbnailSize,
  thumbnailFilename,
  thumbnailKey,
  unthumbnailable,
  type ThumbnailSize,
  type Value,
} from '@entia/domain';
import { ObjectTooLargeError, UnreadableImageError, imageInfo, objectKey, renderThumbnail, type ObjectStat } from '@entia/files';
import { DOWNLOAD_URL_SECONDS } from './files';
import { Gate } from './gate';
import { readable, readableByValue } from './read';
import type { Tenant } from './tenant';

/** Object storage as thumbnails need it: the original's bytes (bounded), the thumbnail's state, writing it, its URL. */
export interface ThumbnailObjects {
  stat(key: string): Promise<ObjectStat | undefined>;
  read(key: string, maxBytes: number, timeoutMs?: number): Promise<Buffer | undefined>;
  write(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  presignDownload(key: string, filename: string, expiresIn: number): Promise<string>;
}

export interface ThumbnailSettings {
  /** Renderings one process runs at once. */
  concurrency: number;
  /** Requests that may wait for a renderer; beyond, `ThumbnailsBusy`. */
  queue: number;
  /** Bound of reading the source, of waiting for a renderer, and (apart) of rendering. */
  timeoutSeconds: number;
  /** Largest source read; larger is 422. */
  maxSourceBytes: number;
}

/** Every renderer is taken and the waiting line is full (or the wait ran out): 503 with Retry-After. */
export class ThumbnailsBusy extends Error {
  override readonly name = 'ThumbnailsBusy';

  constructor() {
    super('Thumbnails are being made for others; try again shortly.');
  }
}

/** A thumbnail, answered like a file value: the value's id and property, the thumbnail's file, a URL for 60 s. */
export interface ThumbnailAnswer {
  _id: string;
  type: string;
  filename: string;
  filesize: number;
  filetype: string;
  size: ThumbnailSize;
  url: string;
}

/**
 * Makes each thumbnail once per (value, size) and stores it beside the original: in the request
 * that first asks for it, within bounds. A process renders at most `concurrency` at once and lets
 * at most `queue` wait; concurrent requests for the same thumbnail share one rendering.
 */
export class Thumbnails {
  private readonly gate: Gate;
  /** Renderings under way, by thumbnail key. */
  private readonly making = new Map<string, Promise<number>>();

  constructor(
    private readonly objects: ThumbnailObjects,
    private readonly settings: ThumbnailSettings,
  ) {
    this.gate = new Gate(settings.concurrency, settings.queue, settings.timeoutSeconds * 1000, () => new ThumbnailsBusy());
  }

  /** The stored thumbnail's size in bytes, made now when missing. */
  async ensure(source: string, size: ThumbnailSize): Promise<{ key: string; bytes: number }> {
    const key = thumbnailKey(source, size);
    const stored = await this.objects.stat(key);
    if (stored) return { key, bytes: stored.size };
    let making = this.making.get(key);
    if (!making) {
      making = this.gate.run(() => this.make(source, key, size)).finally(() => this.making.delete(key));
      this.making.set(key, making);
    }
    return { key, bytes: await making };
  }

  /** Reads the source (bounded), asks the rules about its header, renders and stores the thumbnail. */
  private async make(source: string, key: string, size: ThumbnailSize): Promise<number> {
    const { maxSourceBytes, timeoutSeconds } = this.settings;
    let bytes: Buffer | undefined;
    try {
      bytes = await this.objects.read(source, maxSourceBytes, timeoutSeconds * 1000);
    } catch (error) {
      if (error instanceof ObjectTooLargeError) throw unthumbnailable(`The file is larger than ${maxSourceBytes} bytes, the most a thumbnail is made of.`);
      throw error;
    }
    if (bytes === undefined) throw notFound('The file was not uploaded yet.');
    try {
      const image = await imageInfo(bytes);
      assertThumbnailSource(image);
      const thumbnail = await renderThumbnail(bytes, centredSquare(image.width, image.height), size, { maxPixels: MAX_SOURCE_PIXELS, timeoutSeconds });
      await this.objects.write(key, thumbnail, THUMBNAIL_MIME);
      return thumbnail.length;
    } catch (error) {
      if (error instanceof UnreadableImageError) throw unthumbnailable(`The file is not an image a thumbnail can be made of: ${error.message}`);
      throw error;
    }
  }

  /** The answer for a file value: its thumbnail of `size`, made when missing, with a signed URL. */
  async of(db: string, entityId: string, value: Value, size: ThumbnailSize): Promise<ThumbnailAnswer> {
    if (!isFileValue(value)) throw notFound(`Value ${value._id} is not a file.`);
    assertThumbnailSourceType(value.filetype);
    const { key, bytes } = await this.ensure(objectKey(db, entityId, value._id), size);
    const filename = thumbnailFilename(value.filename, size);
    return {
      _id: value._id,
      type: value.type,
      filename,
      filesize: bytes,
      filetype: THUMBNAIL_MIME,
      size,
      url: await this.objects.presignDownload(key, filename, DOWNLOAD_URL_SECONDS),
    };
  }
}

/** GET /{db}/property/{id}/thumbnail/{size}: the thumbnail of a file value the caller may read. */
export async function valueThumbnail(thumbnails: Thumbnails, tenant: Tenant, valueId: string, sizeText: string): Promise<ThumbnailAnswer> {
  const size = parseThumbnailSize(sizeText);
  const { entity } = await readableByValue(tenant, valueId);
  return thumbnails.of(tenant.name, entity._id, findValue(entity.properties, valueId)!, size);
}

/** GET /{db}/entity/{id}/thumbnail/{size}: the thumbnail of the first `photo` of an entity the caller may read. */
export async function entityThumbnail(thumbnails: Thumbnails, tenant: Tenant, entityId: string, sizeText: string): Promise<ThumbnailAnswer> {
  const size = parseThumbnailSize(sizeText);
  const { entity } = await readable(tenant, entityId);
  const photo = first(entity.properties, PHOTO_PROPERTY);
  if (photo === undefined) throw notFound(`Entity ${entityId} has no ${PHOTO_PROPERTY}.`);
  return thumbnails.of(tenant.name, entity._id, photo, size);
}
