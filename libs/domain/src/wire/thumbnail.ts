import { Type } from '@sinclair/typebox';
import { THUMBNAIL_MIME } from '../thumbnails';
import { ObjectIdSchema } from './identifiers';

/** A thumbnail as the API answers it (`GET …/thumbnail/{size}`): like a file value, with its signed URL. */
export const ThumbnailSchema = Type.Object({
  _id: ObjectIdSchema,
  type: Type.String({ description: 'The property of the file value.' }),
  filename: Type.String({ description: 'The original name\'s stem, the size, `.webp`.' }),
  filesize: Type.Integer({ minimum: 1, description: 'Bytes of the thumbnail.' }),
  filetype: Type.Literal(THUMBNAIL_MIME),
  size: Type.Integer({ description: 'Width and height, in pixels.' }),
  url: Type.String({ description: 'Signed download URL of the thumbnail, valid 60 s.' }),
});
