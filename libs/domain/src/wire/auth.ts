import { Type } from '@sinclair/typebox';

/** A database an API key opens, and the person it acts as there (SPEC §6). */
export const AccountSchema = Type.Object({
  _id: Type.String({ description: 'Database name.' }),
  name: Type.String({ description: 'Database name.' }),
  user: Type.Object({ _id: Type.String({ description: 'Person entity id.' }), name: Type.String() }),
});

/** Answer of `GET /api/auth` (and every sign-in): every database the key opens, and a JWT valid 48 hours. */
export const AuthResultSchema = Type.Object({
  accounts: Type.Array(AccountSchema),
  user: Type.Object({ name: Type.String({ description: 'The signed-in person\'s name.' }) }),
  token: Type.String(),
  expires: Type.String({ format: 'date-time', description: 'When the token expires (ISO 8601); refresh it before with GET /api/auth/refresh.' }),
});
