import { ObjectIdSchema } from '../wire/identifiers';
import { isObjectId } from '../names';
import { defineField, defineValueType, refuse } from './descriptor';

/**
 * An entity id, stored as an ObjectId. Not sortable: ids order by nothing a reader means. Its
 * display label travels in the value's `string` field (SPEC §3), which sorts and searches as text.
 */
export const REFERENCE_FIELD = defineField({
  name: 'reference',
  wire: { input: ObjectIdSchema, output: ObjectIdSchema },
  storedAs: 'object-id',
  filter: {
    operators: ['eq', 'ne', 'in', 'exists'],
    parse: (text: string) => (isObjectId(text) ? text : undefined),
    refused: 'must be an entity id (24 hexadecimal characters)',
  },
  indexed: () => true,
});

/** The id of an entity of the same database (whether it exists and may be read is the write's rule). */
export const REFERENCE_TYPE = defineValueType({
  type: 'reference',
  fields: [REFERENCE_FIELD],
  check: (input) =>
    typeof input.reference !== 'string' || !isObjectId(input.reference) ? refuse('reference', 'must be an entity id') : { reference: input.reference },
  // A formula reads the referenced entity's label, or its id while it has none.
  formula: { read: (value) => (value.reference === undefined ? undefined : (value.string ?? value.reference)) },
});
