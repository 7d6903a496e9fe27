import { Type } from '@sinclair/typebox';
import { ANY_PROPERTY_NAME_PATTERN, DATABASE_NAME_PATTERN, OBJECT_ID_PATTERN } from '../names';

/** The lexical rules of `names.ts` as schema strings, for every wire shape and route that names one. */

export const ObjectIdSchema = Type.String({ pattern: OBJECT_ID_PATTERN, description: 'An id: 24 hexadecimal characters.' });

/** `{db}`: SPEC §2's names, minus the reserved ones; the service's control database is also refused (404). */
export const DatabaseNameSchema = Type.String({
  pattern: DATABASE_NAME_PATTERN,
  description:
    'Database name: 3 to 63 characters, a lowercase letter then lowercase letters, digits or `_`; not `admin`, `local`, `config`, `auth`, `jobs` ' +
    'nor the service\'s control database. A name outside this pattern names no database: 404.',
});

/** A user or system property name, as a value's `type` names its property. */
export const PropertyNameSchema = Type.String({ pattern: ANY_PROPERTY_NAME_PATTERN, description: 'The property name.' });
