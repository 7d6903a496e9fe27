import { Type } from '@sinclair/typebox';

/** A database an API key opens, and the person it acts as there (SPEC §6). */
export const AccountSchema = Type.Object({
  _id: Type.String({ description: 'Database name.' }),
  name: Type.String({ description: 'Database name.' }),
  user: Type.Object({ _id: Type.String({ description: 'Person entity id.' }), name: Type.String() }),
});

/** Answer of `GET /api/auth`: every database the key opens, and a JWT valid 48 hours. */
export const AuthResultSchema = Type.Object({ accounts: Type.Array(AccountSchema), token: Type.String() });
