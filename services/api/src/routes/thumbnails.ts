import { OBJECT_ID_PATTERN, THUMBNAIL_SIZES, ThumbnailSchema } from '@entia/domain';
import { Thumbnails, entityThumbnail, existingId, valueThumbnail, type ThumbnailAnswer } from '@entia/entities';
import { Type } from '@sinclair/typebox';
import type { Request, Response } from 'express';
import type { Deps } from '../deps';
import { sendUncached } from '../http/uncached';
import { defineRoute, type Route } from '../http/route';
import { DatabaseName, DownloadQuery } from './schemas';

const ThumbnailPath = Type.Object({
  db: DatabaseName,
  id: Type.String({ pattern: OBJECT_ID_PATTERN, description: 'Entity or value id: 24 hexadecimal characters; another one names nothing (404).' }),
  size: Type.Union(
    THUMBNAIL_SIZES.map((size) => Type.Literal(String(size))),
    { description: `Width and height in pixels: ${THUMBNAIL_SIZES.join(', ')}; another size names nothing (404).` },
  ),
});


const responses = {
  200: { description: 'The thumbnail, made now if it was not yet: square, centre-cropped, WebP; `url` valid 60 s.', schema: ThumbnailSchema },
  302: { description: '`download=true`: redirect to the signed URL of the thumbnail.' },
  401: { description: 'An expired, forged or revoked token.' },
  404: { description: 'No such database, entity, value or size; the caller may not read it; no photo; or the file was not uploaded.' },
  422: { description: 'The file is not an image a thumbnail is made of (its type, its bytes, truncated, too large, too many pixels).' },
  503: { description: 'Thumbnails are being made for others (or storage is away); try again after `Retry-After`.' },
};

/** A thumbnail answers like a file value: the JSON with its URL, or a 302 to it. */
function answer(req: Request, res: Response, thumbnail: ThumbnailAnswer, download: boolean): void {
  if (download) res.set('Cache-Control', 'no-store').redirect(302, thumbnail.url);
  else sendUncached(req, res, thumbnail);
}

/** Thumbnails of image file values; one renderer pool per process. */
export function thumbnailRoutes(deps: Deps): Route[] {
  const thumbnails = new Thumbnails(deps.objects, {
    concurrency: deps.config.THUMBNAIL_CONCURRENCY,
    queue: deps.config.THUMBNAIL_QUEUE,
    timeoutSeconds: deps.config.THUMBNAIL_TIMEOUT_SECONDS,
    maxSourceBytes: deps.config.THUMBNAIL_MAX_SOURCE_BYTES,
  });
  return [
    defineRoute({
      method: 'get',
      path: '/api/{db}/entity/{id}/thumbnail/{size}',
      operationId: 'getEntityThumbnail',
      summary: 'The square thumbnail of the entity\'s first `photo`, answered like a file value (`download=true`: 302 to it).',
      tags: ['entities'],
      params: ThumbnailPath,
      query: DownloadQuery,
      responses,
      handler: async ({ params, query, tenant, req, res }) => {
        answer(req, res, await entityThumbnail(thumbnails, tenant, existingId(params.id, 'entity'), params.size), query.download === 'true');
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/{db}/property/{id}/thumbnail/{size}',
      operationId: 'getPropertyThumbnail',
      summary: 'The square thumbnail of an image file value, answered like a file value (`download=true`: 302 to it).',
      tags: ['entities'],
      params: ThumbnailPath,
      query: DownloadQuery,
      responses,
      handler: async ({ params, query, tenant, req, res }) => {
        answer(req, res, await valueThumbnail(thumbnails, tenant, existingId(params.id, 'property'), params.size), query.download === 'true');
      },
    }),
  ];
}
