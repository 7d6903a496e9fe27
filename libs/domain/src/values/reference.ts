import { ObjectIdSchema } from '../wire/identifiers';
import { isObjectId } from '../names';
import { defineField, defineOption, defineValueType, refuse } from './descriptor';
import { STRING_FIELD } from './string';

/**
 * An entity id, stored as an ObjectId. Its display label travels in the value's `string` field
 * (SPEC §3), which filters, sorts and searches as text (`author.string=Jane Austen`).
 *
 * Sortable by the id itself, though ids order by nothing a reader means (roughly, by when the
 * referenced entity was created): a table whose column header sorts by its field's type
 * (Entu's client sends `sort=author.reference`) must get an order, never a 400. `sort=author.string`
 * is the order a reader means, by label.
 */
export const REFERENCE_FIELD = defineField({
  name: 'reference',
  scalar: 'id',
  wire: { input: ObjectIdSchema, output: ObjectIdSchema },
  storedAs: 'object-id',
  filter: {
    operators: ['eq', 'ne', 'in', 'exists'],
    parse: (text: string) => (isObjectId(text) ? text : undefined),
    refused: 'must be an entity id (24 hexadecimal characters)',
  },
  // 24 lowercase hex characters order as the ObjectIds do.
  sortKey: (value: string) => value,
  indexed: () => true,
});

/** Which entities a reference may point to: a list query's filters (SPEC §5), checked on every write. */
export const REFERENCE_QUERY_OPTION = defineOption({
  name: 'reference_query',
  key: 'referenceQuery',
  syntax: 'filters',
  description: 'The filter a reference value must match; only when defined.',
});

/** The id of an entity of the same database (whether it exists and may be read is the write's rule). */
export const REFERENCE_TYPE = defineValueType({
  type: 'reference',
  fields: [REFERENCE_FIELD],
  // The label the server keeps on each value (`derived/labels.ts`), as its `__av` and `__sort` entries already hold it.
  carries: [STRING_FIELD],
  options: [REFERENCE_QUERY_OPTION],
  check: (input) =>
    typeof input.reference !== 'string' || !isObjectId(input.reference) ? refuse('reference', 'must be an entity id') : { reference: input.reference },
  // A formula reads the referenced entity's label, or its id while it has none.
  formula: { read: (value) => (value.reference === undefined ? undefined : (value.string ?? value.reference)) },
});
