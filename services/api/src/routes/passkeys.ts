import { AuthResultSchema, DATABASE_SPELLING_PATTERN, ValueSchema } from '@entia/domain';
import { databaseOfPasskey, passkeyHolder, registerPasskey, signInWithPasskey, signedIn, type RegisteredPasskey, type Tenant } from '@entia/entities';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { Type } from '@sinclair/typebox';
import { unauthorized } from '../auth/authenticate';
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

/** The options' `challengeToken`, sent back beside the answer by Entu's client: the challenge itself. */
const ChallengeToken = Type.String({ minLength: 16, maxLength: 256, pattern: '^[A-Za-z0-9_-]+$', description: 'The `challengeToken` of the options this answers.' });

/**
 * The browser's answer spread at the top level, as Entu's client sends it (@simplewebauthn/browser's
 * result plus `challengeToken`); every field named, nothing else taken.
 */
const EntuCeremonyAnswer = {
  id: CeremonyAnswer.properties.id,
  rawId: CeremonyAnswer.properties.rawId,
  type: CeremonyAnswer.properties.type,
  response: CeremonyAnswer.properties.response,
  authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
  clientExtensionResults: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 16 })),
  challengeToken: ChallengeToken,
};
const EntuSignInBody = Type.Object(
  { ...EntuCeremonyAnswer, db: Type.Optional(Type.String({ pattern: DATABASE_SPELLING_PATTERN, description: 'Sign in to this database; without it, the one the passkey belongs to.' })) },
  { additionalProperties: false, description: "Entu's client's shape: the answer at the top level with `challengeToken`." },
);
const EntuRegisterBody = Type.Object(
  { ...EntuCeremonyAnswer, deviceName: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'What to call the device (shown in the answer).' })) },
  { additionalProperties: false },
);
const EntuRegistered = Type.Object({
  success: Type.Literal(true),
  _id: Type.String({ description: 'The person.' }),
  properties: Type.Array(Type.Object({ _id: Type.String(), type: Type.Literal('_passkey'), string: Type.String({ description: 'The device name and the value id\'s last four characters, as Entu shows a passkey.' }) })),
});
const RegisterBody = Type.Object({ response: CeremonyAnswer }, { additionalProperties: false });
const Options = Type.Record(Type.String(), Type.Unknown(), { description: 'WebAuthn options for `navigator.credentials` (JSON form): pass them to @simplewebauthn/browser.' });
const Registered = Type.Object({ _id: Type.String(), properties: Type.Object({ _passkey: Type.Array(ValueSchema) }) });

/**
 * Passkeys: a signed-in person registers one (options, then the browser's answer), and
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
      handler: async ({ tenant, res }) => {
        res.json(await registrationOptions(tenant));
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
      handler: async ({ params, body, tenant, res }) => {
        const passkey = await verifiedRegistration(tenant, body.response as unknown as RegistrationResponseJSON);
        const value = await registerPasskey(deps, tenant, passkey);
        res.status(201).json({ _id: signedIn(tenant).personId, properties: { _passkey: [value] } });
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
      summary:
        "Sign in with the passkey answer to the options: the same answer as GET /api/auth. `{db, response}`, or Entu's client's shape: the answer at the top level with the options' `challengeToken` (and `db` optional: the passkey's own database).",
      tags: ['auth'],
      auth: 'none',
      body: Type.Union([SignInBody, EntuSignInBody]),
      responses: {
        200: { description: 'The database the passkey opens, and the token.', schema: AuthResultSchema },
        401: { description: 'Unknown or revoked passkey, or an answer that failed its checks (challenge used, expired or not the challengeToken\'s; origin, signature, counter).' },
      },
      handler: async ({ body, res }) => {
        const rp = configured();
        const entu = 'challengeToken' in body;
        const { response, challengeToken } = entu ? { response: body, challengeToken: body.challengeToken } : { response: body.response, challengeToken: undefined };
        const answer = response as unknown as AuthenticationResponseJSON;
        const db = body.db ?? (await databaseOfPasskey(deps, answer.id));
        if (db === undefined) throw unauthorized('Unknown or revoked passkey.');
        const signIn = await signInWithPasskey(deps, db, answer.id, async (key) => {
          try {
            return await rp.verifySignIn(db, answer, key, challengeToken);
          } catch (error) {
            deps.logger.info({ reason: (error as Error).message }, 'passkey sign-in refused');
            throw unauthorized('This passkey answer was refused: sign in again.');
          }
        });
        res.set('Cache-Control', 'no-store').json(signInAnswer(signIn, signingKey));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/auth/passkey',
      operationId: 'passkeySignInOptionsForEntu',
      summary:
        "Options to sign in with a passkey, as Entu's client asks for them: with a `challengeToken` to send back beside the answer. Without `db`, the answer signs in to the passkey's own database. Valid 5 minutes, once.",
      tags: ['auth'],
      auth: 'none',
      query: Type.Object(
        { db: Type.Optional(Type.String({ pattern: DATABASE_SPELLING_PATTERN, description: "Sign in to this database only; without it, to the passkey's own." })) },
        { additionalProperties: false },
      ),
      responses: {
        200: { description: 'PublicKeyCredentialRequestOptionsJSON and `challengeToken`.', schema: Options },
        404: { description: 'No such database, or passkeys are not configured.' },
      },
      handler: async ({ query, res }) => {
        const rp = configured();
        if (query.db !== undefined) await tenants.resolve(query.db, undefined);
        const options = await rp.signInOptions(query.db);
        res.set('Cache-Control', 'no-store').json({ ...options, challengeToken: options.challenge });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/{db}/passkey',
      operationId: 'passkeyRegistrationOptionsForEntu',
      summary: "Options to register a passkey for the signed-in person, as Entu's client asks for them: with a `challengeToken`. Valid 5 minutes, once.",
      tags: ['auth'],
      params: DbPath,
      security: 'required',
      responses: {
        200: { description: 'PublicKeyCredentialCreationOptionsJSON and `challengeToken`.', schema: Options },
        401: { description: 'No token, or it was revoked.' },
        404: { description: 'No such database, or passkeys are not configured.' },
      },
      handler: async ({ tenant, res }) => {
        const options = await registrationOptions(tenant);
        res.set('Cache-Control', 'no-store').json({ ...options, challengeToken: options.challenge });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/{db}/passkey',
      operationId: 'registerPasskeyForEntu',
      summary:
        "Register the passkey the browser created, as Entu's client sends it: the answer at the top level with `challengeToken` and `deviceName`. Adds a `_passkey` value to the signed-in person; Entu's answer.",
      tags: ['auth'],
      params: DbPath,
      body: EntuRegisterBody,
      responses: {
        200: { description: 'Entu\'s answer: the person and the new value.', schema: EntuRegistered },
        400: { description: 'The answer failed its checks (challenge, challengeToken, origin, relying party), or the person holds 10 passkeys.' },
        401: { description: 'No token, or it was revoked.' },
        409: { description: 'This passkey is already registered.' },
      },
      handler: async ({ params, body, tenant, res }) => {
        const { challengeToken, deviceName, ...answer } = body;
        const passkey = await verifiedRegistration(tenant, answer as unknown as RegistrationResponseJSON, challengeToken);
        const value = await registerPasskey(deps, tenant, { ...passkey, ...(deviceName === undefined ? {} : { device: deviceName }) });
        const shown = `${deviceName ?? 'Passkey'} ${value._id.slice(-4).toUpperCase()}`;
        res.json({ success: true, _id: signedIn(tenant).personId, properties: [{ _id: value._id, type: '_passkey', string: shown }] });
      },
    }),
  ];

  /** Options to register a passkey for the signed-in person, excluding those they hold. */
  async function registrationOptions(tenant: Tenant) {
    const holder = await passkeyHolder(tenant);
    return configured().registrationOptions(tenant.name, { id: holder.personId, name: holder.name }, holder.passkeys);
  }

  /** The passkey a registration answer of the signed-in person creates; a 400 saying why when it fails a check. */
  async function verifiedRegistration(tenant: Tenant, response: RegistrationResponseJSON, challengeToken?: string): Promise<RegisteredPasskey> {
    const { personId } = signedIn(tenant);
    try {
      return await configured().verifyRegistration(tenant.name, personId, response, challengeToken);
    } catch (error) {
      throw problems.invalidRequest(`The passkey's registration was refused: ${(error as Error).message}`);
    }
  }
}
