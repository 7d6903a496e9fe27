/**
 * The SDK writes its wire types out (the published package carries no server code); this file holds
 * them to the schemas the API validates with and publishes, and its `where` operators to the
 * domain's. It is type-checked by `npm run build` (tsconfig.tests.json), so a field added, removed
 * or retyped on one side only fails the build.
 */
import type * as client from '@entia/client';
import type {
  AccountSchema,
  AddedValuesSchema,
  AuthResultSchema,
  ChangeEventSchema,
  ChangeSchema,
  DatabaseSchemaSchema,
  DeletedSchema,
  EntityListSchema,
  EntitySchema,
  HistorySchema,
  Operator,
  ProblemSchema,
  StoredValueSchema,
  ThumbnailSchema,
  UploadTargetSchema,
  ValueInputSchema,
  ValueSchema,
  WriteResultSchema,
} from '@entia/domain';
import type { Static } from '@sinclair/typebox';

/** True only when each type is assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;

export type WireTypesAgree = [
  Holds<Same<client.ValueInput, Static<typeof ValueInputSchema>>>,
  Holds<Same<client.UploadTarget, Static<typeof UploadTargetSchema>>>,
  Holds<Same<client.StoredValue, Static<typeof StoredValueSchema>>>,
  Holds<Same<client.Value, Static<typeof ValueSchema>>>,
  Holds<Same<client.Entity, Static<typeof EntitySchema>>>,
  Holds<Same<client.WriteResult, Static<typeof WriteResultSchema>>>,
  Holds<Same<client.AddedValues, Static<typeof AddedValuesSchema>>>,
  Holds<Same<client.EntityList, Static<typeof EntityListSchema>>>,
  Holds<Same<client.Deleted, Static<typeof DeletedSchema>>>,
  Holds<Same<client.Change, Static<typeof ChangeSchema>>>,
  Holds<Same<client.History, Static<typeof HistorySchema>>>,
  Holds<Same<client.Thumbnail, Static<typeof ThumbnailSchema>>>,
  Holds<Same<client.Account, Static<typeof AccountSchema>>>,
  Holds<Same<client.AuthResult, Static<typeof AuthResultSchema>>>,
  Holds<Same<client.ChangeEvent, Static<typeof ChangeEventSchema>>>,
  Holds<Same<client.Problem, Static<typeof ProblemSchema>>>,
  Holds<Same<client.DatabaseSchema, Static<typeof DatabaseSchemaSchema>>>,
];

/**
 * The SDK's `where` operators are the domain's (query/operators.ts): its list, and every operator
 * some operator object of a data type offers. An operator added to the server and not to the SDK
 * (or the other way round) fails the build.
 */
export type WhereOperatorsAgree = [
  Holds<Same<client.WhereOperator, Operator>>,
  Holds<Same<keyof client.StringOps | keyof client.RangeOps<unknown> | keyof client.ReferenceOps | keyof client.BooleanOps, Operator>>,
];
