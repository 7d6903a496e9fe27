import type { ValueField } from './values/types';

/**
 * A value as a client sends it (interface §4.1), already shape-checked by the request schema.
 * Below `write.ts`, so that the rules it uses (credentials, counters) can name it without a circle.
 */
export type ValueInput = { type: string; _id?: string; language?: string; /** A counter's step (`counters.ts`): the server numbers the value. */ counter?: unknown } & Partial<
  Record<ValueField, unknown>
>;
