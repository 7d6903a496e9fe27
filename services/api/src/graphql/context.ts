import type { Schema, Tenant } from '@entia/entities';
import type { Logger } from 'pino';
import type { Deps } from '../deps';
import type { Loaders } from './loaders';

/** What a database's generated schema knows beyond graphql-js: how its types are named. */
export interface Naming {
  /** Type id → the GraphQL object type its entities resolve to. */
  objectOf(typeId: string | undefined): string;
  /** A GraphQL type name (as `_children(type:)` takes it) → type id; undefined if unknown. */
  typeIdOf(name: string): string | undefined;
}

/** Per request: the caller's view of the database, and the loaders that batch its reads. */
export interface GraphqlContext {
  deps: Deps;
  tenant: Tenant;
  schema: Schema;
  naming: Naming;
  loaders: Loaders;
  logger: Logger;
}
