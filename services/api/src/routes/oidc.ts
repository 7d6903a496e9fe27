import { AuthResultSchema, DATABASE_SPELLING_PATTERN, DomainError, returnAddressProblem, withSignInError, withSignInKey } from '@entia/domain';
import { liveKey, signInOf, signInWithIdentity } from '@entia/entities';
import { Type } from '@sinclair/typebox';
import { unauthorized } from '../auth/authenticate';
import { signInAnswer } from '../auth/answer';
import { OidcSignIn, ProviderUnavailable, returnsWithKey, type CodeReturn, type KeyReturn, type PendingSignIn } from '../auth/oidc';
import type { SignInKeys } from '../auth/sign-in-keys';
import { SingleUse } from '../auth/single-use';
import { TokenKeys } from '../auth/tokens';
import type { Deps } from '../deps';
import { HttpProblem, problems } from '../http/problem';
import { defineRoute, type Route } from '../http/route';
import type { Tenants } from '../tenancy';

/** How long the one-time code a sign-in returns with may wait for its exchange. */
export const CODE_SECONDS = 60;

/** The credential a one-time code stands for. */
interface CodeFor {
  kid: string;
}

const ProviderPath = Type.Object({ provider: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,31}$', description: 'A provider of OIDC_PROVIDERS.' }) });

const StartQuery = Type.Object(
  {
    db: Type.String({ pattern: DATABASE_SPELLING_PATTERN, description: 'The database to sign in to.' }),
    redirect: Type.String({ maxLength: 2048, description: 'Where to return: one of OIDC_REDIRECT_URIS, exactly.' }),
    state: Type.Optional(Type.String({ maxLength: 512, description: "The app's own state, handed back with the code: check it on return (login CSRF)." })),
    login_hint: Type.Optional(Type.String({ maxLength: 256, description: 'Passed on to the provider (e.g. the e-mail to sign in with).' })),
  },
  { additionalProperties: false },
);

const EntuStartQuery = Type.Object(
  {
    next: Type.String({ minLength: 1, maxLength: 2048, description: "Where to return with the one-time key: at one of OIDC_REDIRECT_URIS (origin and path; the query is the app's)." }),
    login_hint: Type.Optional(Type.String({ maxLength: 256, description: 'Passed on to the provider (e.g. the e-mail to sign in with).' })),
  },
  { additionalProperties: false },
);

// Providers add parameters of their own (session_state, scope, authuser…): the library reads what it needs.
const CallbackQuery = Type.Object({ state: Type.String({ maxLength: 512, description: 'The sign-in this answer belongs to.' }) }, { additionalProperties: true });

const CodeBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 256, description: 'The one-time code the sign-in returned with (`entia_code`).' }) }, { additionalProperties: false });

/** The app's redirect URI with parameters added. */
function back(redirect: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(redirect);
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

/**
 * Sign-in with OpenID Connect: the start redirects to the provider, the provider's
 * callback ends at the app's redirect URI with a one-time code (never a token in a URL), and the
 * app exchanges the code by POST for the same answer as `GET /api/auth`.
 */
export function oidcRoutes(deps: Deps, tenants: Tenants, oidc: OidcSignIn, redirects: ReadonlySet<string>, signInKeys: SignInKeys): Route[] {
  const signingKey = TokenKeys.fromConfig(deps.config).signing;
  const codes = new SingleUse<CodeFor>(deps.breaker, `${deps.config.REDIS_PREFIX}:oidc:code`, CODE_SECONDS);
  const knownProvider = (name: string) => {
    if (!oidc.has(name)) throw problems.notFound(`No sign-in provider "${name}" (OIDC_PROVIDERS).`);
  };

  return [
    defineRoute({
      method: 'get',
      path: '/api/auth/oidc/{provider}',
      operationId: 'startOidcSignIn',
      summary:
        'Start signing in to a database with an OpenID provider: answers 302 to the provider. The sign-in ends at `redirect` with `entia_code` (exchange it ' +
        'with POST /api/auth/oidc/token within 60 s) and your `state`, or with `error` and `error_description`.',
      tags: ['auth'],
      auth: 'none',
      params: ProviderPath,
      query: StartQuery,
      responses: {
        302: { description: 'To the provider.' },
        400: { description: '`redirect` is not one of OIDC_REDIRECT_URIS, or a parameter is malformed.' },
        404: { description: 'No such provider or database.' },
        503: { description: 'The provider (or Redis) cannot be reached now.' },
      },
      handler: async ({ params, query, res }) => {
        knownProvider(params.provider);
        if (!redirects.has(query.redirect)) throw problems.invalidRequest('`redirect` must be one of the addresses in OIDC_REDIRECT_URIS, exactly.');
        await tenants.resolve(query.db, undefined);
        const location = await started(params.provider, { db: query.db, redirect: query.redirect, ...(query.state === undefined ? {} : { appState: query.state }) }, query.login_hint);
        res.set('Cache-Control', 'no-store').redirect(302, location.href);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/auth/oidc/{provider}/callback',
      operationId: 'finishOidcSignIn',
      summary:
        "The provider's redirect URI (register PUBLIC_URL/api/auth/oidc/<provider>/callback with it): verifies the answer and returns to the app's `redirect`.",
      tags: ['auth'],
      auth: 'none',
      params: ProviderPath,
      query: CallbackQuery,
      responses: {
        302: { description: 'To the app: `entia_code` and `state` on success, `error` and `error_description` otherwise.' },
        400: { description: 'Unknown, used or expired `state`: nowhere safe to return to.' },
        404: { description: 'No such provider.' },
      },
      handler: async ({ params, query, req, res }) => {
        knownProvider(params.provider);
        const pending = await oidc.takePending(query.state);
        if (!pending || pending.provider !== params.provider) {
          throw new HttpProblem(400, 'sign-in-expired', 'Bad Request', 'This sign-in is unknown, was already used, or took longer than 10 minutes: start again.');
        }
        res.set('Cache-Control', 'no-store').redirect(302, await finish(pending, query.state, new URL(req.originalUrl, 'http://callback').search.slice(1)));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/auth/oidc/token',
      operationId: 'exchangeOidcCode',
      summary: 'Exchange the one-time code a sign-in returned with for the same answer as GET /api/auth. A code works once, within 60 s.',
      tags: ['auth'],
      auth: 'none',
      body: CodeBody,
      responses: {
        200: { description: 'The database the identity opens, and the token.', schema: AuthResultSchema },
        401: { description: 'Unknown, used or expired code, or the identity was revoked meanwhile.' },
      },
      handler: async ({ body, res }) => {
        const issued = await codes.take(body.code);
        const live = issued && (await liveKey(deps.store, issued.kid));
        if (!live) throw unauthorized('Unknown, used or expired sign-in code: sign in again.');
        res.set('Cache-Control', 'no-store').json(signInAnswer(signInOf(live), signingKey));
      },
    }),
    // Last: `/api/auth/{provider}` would take the other one-segment paths under /api/auth.
    defineRoute({
      method: 'get',
      path: '/api/auth/{provider}',
      operationId: 'startProviderSignIn',
      summary:
        "Start signing in with an OpenID provider the way Entu's web client does: answers 302 to the provider. The sign-in ends at `next` with a one-time key " +
        'appended (`…?key=` + key; exchange it with GET /api/auth within 5 minutes, once), or with `error` and `error_description`.',
      tags: ['auth'],
      auth: 'none',
      params: ProviderPath,
      query: EntuStartQuery,
      responses: {
        302: { description: 'To the provider.' },
        400: { description: '`next` is not at one of the addresses in OIDC_REDIRECT_URIS, or a parameter is malformed.' },
        404: { description: 'No such provider.' },
        503: { description: 'The provider (or Redis) cannot be reached now.' },
      },
      handler: async ({ params, query, res }) => {
        knownProvider(params.provider);
        const problem = returnAddressProblem(query.next, [...redirects]);
        if (problem) throw problems.invalidRequest(`${problem}.`);
        res.set('Cache-Control', 'no-store').redirect(302, (await started(params.provider, { next: query.next }, query.login_hint)).href);
      },
    }),
  ];

  async function started(provider: string, back: CodeReturn | KeyReturn, loginHint: string | undefined): Promise<URL> {
    try {
      return await oidc.start(provider, back, loginHint);
    } catch (error) {
      if (error instanceof ProviderUnavailable) throw problems.unavailable(`The sign-in provider "${provider}" cannot be reached now.`);
      throw error;
    }
  }

  /** The address the callback returns to: the app's, with a code or a one-time key, or with the reason it was refused. */
  async function finish(pending: PendingSignIn, state: string, search: string): Promise<string> {
    const refused = (description: string, error = 'access_denied') =>
      returnsWithKey(pending) ? withSignInError(pending.next, error, description) : back(pending.redirect, { error, error_description: description, state: pending.appState });
    let person;
    try {
      person = await oidc.finish(pending, state, search);
    } catch (error) {
      if (error instanceof ProviderUnavailable) return refused('The sign-in provider cannot be reached now; try again later.', 'temporarily_unavailable');
      // An answer that failed a check: tampered, replayed, from another issuer, or the person declined.
      deps.logger.info({ provider: pending.provider, reason: (error as Error).message }, 'oidc sign-in refused');
      return refused('The provider\'s answer was refused.');
    }
    // Entu's client chooses the database afterwards, at GET /api/auth: the key stands for the person until then.
    if (returnsWithKey(pending)) return withSignInKey(pending.next, await signInKeys.issue(person));
    try {
      const tenant = await tenants.resolve(pending.db, undefined);
      const signIn = await signInWithIdentity(deps, tenant, person.identity, person.profile);
      return back(pending.redirect, { entia_code: await codes.issue({ kid: signIn.kid }), state: pending.appState });
    } catch (error) {
      // Refused (unknown identity, a registration the person type's rules refuse), or busy: back to the app either way.
      if (error instanceof DomainError) return refused(error.message, error.kind === 'conflict' ? 'temporarily_unavailable' : 'access_denied');
      throw error;
    }
  }
}
