import { DomainError } from '@entia/domain';
import { QueryTooSlow } from '@entia/entities';
import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { unavailableDependency } from '../http/unavailable';

/**
 * A resolver's failure as a GraphQL error. Refusals of the domain rules keep their kind in
 * `extensions.code` (the same kinds as the REST problem types: invalid, unauthenticated, forbidden,
 * not-found, conflict, unprocessable) and their field errors; a query out of time or a dependency
 * that is down is `unavailable` (REST: 503); anything else is logged and answered
 * without its text, as the REST error handler answers a 500.
 */
export function graphqlErrorOf(error: unknown, logger: Logger): GraphQLError {
  if (error instanceof GraphQLError) return error;
  if (error instanceof DomainError) {
    return new GraphQLError(error.message, { extensions: { code: error.kind, ...(error.errors.length > 0 ? { errors: error.errors } : {}) } });
  }
  if (error instanceof QueryTooSlow) return new GraphQLError(error.message, { extensions: { code: 'unavailable' } });
  // A dependency that is down is the REST 503: the client may retry later; nothing is wrong with the request.
  const dependency = unavailableDependency(error);
  if (dependency !== undefined) return new GraphQLError(`${dependency} is unavailable; try again later.`, { extensions: { code: 'unavailable' } });
  logger.error({ err: error }, 'graphql resolver failed');
  return new GraphQLError('Internal error.', { extensions: { code: 'internal' } });
}

/** A resolver whose failures become `graphqlErrorOf`. */
export function guarded<S, A, C extends { logger: Logger }, R>(resolve: (source: S, args: A, context: C) => Promise<R> | R) {
  return async (source: S, args: A, context: C): Promise<R> => {
    try {
      return await resolve(source, args, context);
    } catch (error) {
      throw graphqlErrorOf(error, context.logger);
    }
  };
}
