import { ClientError, GraphQLClient } from 'graphql-request';
import type { Person, TestTenant } from './tenant';

export interface Answer<T = Record<string, any>> {
  status: number;
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string; limit?: string; errors?: unknown[] } }[];
}

/**
 * A real GraphQL client (graphql-request) on the running API's socket, as `person` (anonymous
 * when null). Errors are returned, not thrown, so a test can look at their codes.
 */
export function graphqlAs(t: TestTenant, person: Person | null = t.owner, db = t.db) {
  const client = new GraphQLClient(`${t.baseUrl}/api/${db}/graphql`, {
    headers: person ? { Authorization: person.auth } : {},
    errorPolicy: 'all',
  });
  return async <T = Record<string, any>>(query: string, variables?: Record<string, unknown>): Promise<Answer<T>> => {
    try {
      const answer = await client.rawRequest<T>(query, variables);
      return { status: answer.status, data: answer.data, errors: answer.errors as Answer['errors'] };
    } catch (error) {
      if (!(error instanceof ClientError)) throw error;
      return { status: error.response.status, data: error.response.data as T, errors: error.response.errors as Answer['errors'] };
    }
  };
}

export const codesOf = (answer: Answer) => (answer.errors ?? []).map((error) => error.extensions?.code);
