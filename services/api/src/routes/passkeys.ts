import { AuthResultSchema, DATABASE_SPELLING_PATTERN, ValueSchema } from '@entia/domain';
import { passkeyHolder, registerPasskey, signInWithPasskey, signedIn } from '@entia/entities';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { Type } from '@sinclair/typebox';
import { grantOf, unauthorized } from '../auth/authenticate';
import { signInAnswer } from '../auth/answer';
import type { PasskeyCeremonies } from '../auth/passkeys';
import { TokenKeys } from '../auth/tokens';
import type { Deps } from '../deps';
import { problems } from '../http/problem';
import { defineRoute, type Route } from '../http/route';
import type { Tenants } from '../tenancy';
import { DbPath } from './schemas';

// The browser's answer, as @simplewebauthn/browser (or `PublicKeyCredential.toJSON()`) gives it;
// the library checks its inside. Bounded: a passkey's answer is a few kilobytes at most.
const CeremonyAnswer = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 1024, pattern: '^[A-Za-z0-9_-]+$' }),
    rawId: Type.String({ maxLength: 1024 }),
    type: Type.Literal('public-key'),
    response: Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 16 }),
  },
  { additionalProperties: true, description: 'The credential as the browser returned it, JSON-encoded (base64url fields).' },
);

const SignInOptionsBody = Type.Object({ db: Type.String({ pattern: DATABASE_SPELLING_PATTERN }) }, { additionalProperties: false });
const SignInBody = Type.Object({ db: Type.String({ pattern: DATABASE_SPELLING_PATTERN }), response: CeremonyAnswer }, { additionalProperties: false });
const RegisterBody = Type.Object({ response: CeremonyAnswer }, { additionalProperties: false });
const Options = Type.Record(Type.String(), Type.Unknown(), { description: 'WebAuthn options for `navigator.credentials` (JSON form): pass them to @simplewebauthn/browser.' });
const Registered = Type.Object({ _id: Type.String(), properties: Type.Object({ _passkey: Type.Array(ValueSchema) }) });

/**
 * Passkeys (issue 20): a signed-in person registers one (options, then the browser's answer), and
 * anyone signs in to a database with one (options, then the answer) for the same answer as
 * `GET /api/auth`. 404 on every route while WEBAUTHN_RP_ID is none.
 */
export function passkeyRoutes(deps: Deps, tenants: Tenants, ceremonies: PasskeyCeremonies | undefined): Route[] {
  const signingKey = TokenKeys.fromConfig(deps.config).signing;
  const configured = (): PasskeyCeremonies => {
    if (!ceremonies) throw problems.notFound('Passkeys are not configured on this server (WEBAUTHN_RP_ID).');
    return ceremonies;
  };

  return [
    defineRoute({
      method: 'post',
      path: '/api/{db}/passkeys/options',
      operationId: 'passkeyRegistrationOptions',
      summary: 'Options to register a passkey for the signed-in person (pass them to `navigator.credentials.create`, e.g. with @simplewebauthn/browser). Valid 5 minutes, once.',
      tags: ['auth'],
      params: DbPath,
      optionalBody: true,
      body: Type.Object({}, { additionalProperties: false }),
      responses: {
        200: { description: 'PublicKeyCredentialCreationOptionsJSON.', schema: Options },
        401: { description: 'No token, or it was revoked.' },
        404: { description: 'No such database, or passkeys are not configured.' },
      },
      handler: async ({ params, res }) => {
        const tenant = await tenants.resolve(params.db, grantOf(res));
        const holder = await passkeyHolder(tenant);
        const rp = configured();
        res.json(await rp.registrationOptions(tenant.name, { id: holder.personId, name: holder.name }, holder.passkeys));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/{db}/passkeys',
      operationId: 'registerPasskey',
      summary:
        "Register the passkey the browser created from the options: adds a `_passkey` value (the credential id) to the signed-in person; its public key is kept in the credential index. Deleting the value revokes it.",
      tags: ['auth'],
      params: DbPath,
      body: RegisterBody,
      responses: {
        201: { description: 'The new `_passkey` value.', schema: Registered },
        400: { description: 'The answer failed its checks (challenge, origin, relying party), or the person holds 10 passkeys.' },
        401: { description: 'No token, or it was revoked.' },
        409: { description: 'This passkey is already registered.' },
      },
      handler: async ({ params, body, res }) => {
        const tenant = await tenants.resolve(params.db, grantOf(res));
        const { personId } = signedIn(tenant);
        const rp = configured();
        let passkey;
        try {
          passkey = await rp.verifyRegistration(tenant.name, personId, body.response as unknown as RegistrationResponseJSON);
        } catch (error) {
          throw problems.invalidRequest(`The passkey's registration was refused: ${(error as Error).message}`);
        }
        const value = await registerPasskey(deps, tenant, passkey);
        res.status(201).json({ _id: personId, properties: { _passkey: [value] } });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/auth/passkey/options',
      operationId: 'passkeySignInOptions',
      summary: 'Options to sign in to a database with a passkey (pass them to `navigator.credentials.get`). Valid 5 minutes, once.',
      tags: ['auth'],
      auth: 'none',
      body: SignInOptionsBody,
      responses: {
        200: { description: 'PublicKeyCredentialRequestOptionsJSON.', schema: Options },
        404: { description: 'No such database, or passkeys are not configured.' },
      },
      handler: async ({ body, res }) => {
        const rp = configured();
        await tenants.resolve(body.db, undefined);
        res.set('Cache-Control', 'no-store').json(await rp.signInOptions(body.db));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/auth/passkey',
      operationId: 'signInWithPasskey',
      summary: 'Sign in with the passkey answer to the options: the same answer as GET /api/auth.',
      tags: ['auth'],
      auth: 'none',
      body: SignInBody,
      responses: {
        200: { description: 'The database the passkey opens, and the token.', schema: AuthResultSchema },
        401: { description: 'Unknown or revoked passkey, or an answer that failed its checks (challenge used or expired, origin, signature, counter).' },
      },
      handler: async ({ body, res }) => {
        const rp = configured();
        const response = body.response as unknown as AuthenticationResponseJSON;
        const signIn = await signInWithPasskey(deps, body.db, response.id, async (key) => {
          try {
            return await rp.verifySignIn(body.db, response, key);
          } catch (error) {
            deps.logger.info({ reason: (error as Error).message }, 'passkey sign-in refused');
            throw unauthorized('This passkey answer was refused: sign in again.');
          }
        });
        res.set('Cache-Control', 'no-store').json(signInAnswer(signIn, signingKey));
      },
    }),
  ];
}
