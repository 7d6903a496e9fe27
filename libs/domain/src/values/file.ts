import { Type } from '@sinclair/typebox';
import { defineField, defineValueType, refuse } from './descriptor';
import { NUMBER_FILTER } from './number';
import { TEXT_FILTER, isWellFormed, sortable } from './string';

const MIME = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;

/** The original file name: filtered and searched as text. */
export const FILENAME_FIELD = defineField({
  name: 'filename',
  scalar: 'string',
  wire: { input: Type.String({ maxLength: 255 }), output: Type.String() },
  storedAs: 'as-is',
  filter: TEXT_FILTER,
  sortKey: (value: string) => sortable(value),
  searchText: (value: string) => value,
});

export const FILESIZE_FIELD = defineField({
  name: 'filesize',
  scalar: 'number',
  wire: { input: Type.Integer(), output: Type.Integer() },
  storedAs: 'as-is',
  filter: NUMBER_FILTER,
  sortKey: (value: number) => value,
});

/** The MIME type: few distinct values, so equality filters on it are worth an index entry. */
export const FILETYPE_FIELD = defineField({
  name: 'filetype',
  scalar: 'string',
  wire: { input: Type.String({ maxLength: 255 }), output: Type.String() },
  storedAs: 'as-is',
  filter: TEXT_FILTER,
  sortKey: (value: string) => value,
  indexed: () => true,
});

/** A file's metadata; its bytes live in object storage (SPEC §8). */
export const FILE_TYPE = defineValueType({
  type: 'file',
  fields: [FILENAME_FIELD, FILESIZE_FIELD, FILETYPE_FIELD],
  input: 'upload',
  check: (input, { limits }) => {
    const { filename, filesize, filetype } = input;
    if (typeof filename !== 'string' || filename.length === 0 || filename.length > 255 || !isWellFormed(filename)) {
      return refuse('filename', 'must be a file name of 1 to 255 characters');
    }
    if (typeof filesize !== 'number' || !Number.isInteger(filesize) || filesize <= 0 || filesize > limits.maxFileSize) {
      return refuse('filesize', `must be a whole number of bytes, 1 to ${limits.maxFileSize}`);
    }
    if (typeof filetype !== 'string' || !MIME.test(filetype)) return refuse('filetype', 'must be a MIME type such as image/png');
    return { filename, filesize, filetype };
  },
  formula: { read: (value) => value.filename },
});
