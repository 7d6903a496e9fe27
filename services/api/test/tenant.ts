import type { MetaTypes } from '@entia/domain';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createDatabase } from '@entia/entities';
import type { TestApi } from './support';
import { stackConnected } from '../../../libs/store/test/stack-reach';

export interface Person {
  id: string;
  apiKey: string;
  token: string;
  /** `Authorization` header value for supertest. */
  auth: string;
}

export interface Definition {
  name: string;
  type: string;
  list?: boolean;
  multilingual?: boolean;
  search?: boolean;
  mandatory?: boolean;
  readonly?: boolean;
  reference_query?: string;
  formula?: string;
}

export interface TestTenant {
  db: string;
  types: MetaTypes;
  owner: Person;
  /** Base URL of the running API, for clients that need a real socket. */
  baseUrl: string;
  /** A new person of this database (created by the owner), signed in with a key of their own. */
  newPerson(name: string): Promise<Person>;
  /** A new type with these property definitions, shared with the domain; returns its id. */
  defineType(name: string, definitions: Definition[], by?: Person): Promise<string>;
  /** One more property definition of type `typeId`; returns the definition entity's id. */
  defineProperty(typeId: string, definition: Definition, by?: Person): Promise<string>;
  /** POSTs values as `by` (default the owner) and returns the supertest response. */
  create(values: object[], by?: Person): Promise<request.Response>;
  close(): Promise<void>;
}

/** A value of a write's answer, as the tests read it. */
export type WrittenValue = { _id: string; type: string } & Record<string, any>;

/**
 * The values of property `type` in the answer to `POST /api/{db}/entity/<id>`: one array of the
 * values written, in the order sent, each naming its property (SPEC §7a) — read as Entu's client reads it.
 */
export function writtenOf(body: { properties: WrittenValue[] }, type: string): WrittenValue[] {
  return body.properties.filter((value) => value.type === type);
}

export async function signIn(api: TestApi, id: string, apiKey: string): Promise<Person> {
  const res = await request(api.app).get('/api/auth').set('Authorization', `Bearer ${apiKey}`);
  if (res.status !== 200) throw new Error(`key exchange failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id, apiKey, token: res.body.token, auth: `Bearer ${res.body.token}` };
}

/**
 * A fresh tenant database created with the same code the create-database command runs, once the
 * API's MongoDB connection is up: as a load balancer waits for /readyz, so a first connect slowed by
 * a busy machine is not taken for the test's failure.
 */
export async function testTenant(api: TestApi): Promise<TestTenant> {
  await stackConnected(api.deps.store);
  const created = await createDatabase(api.deps.store, `t_${randomBytes(5).toString('hex')}`, 'Owner');
  const owner = await signIn(api, created.personId, created.apiKey);
  const server: Server = api.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const db = created.db;

  const create = (values: object[], by: Person = owner) =>
    request(api.app).post(`/api/${db}/entity`).set('Authorization', by.auth).send(values);

  async function expectCreated(values: object[], by: Person = owner): Promise<string> {
    const res = await create(values, by);
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body._id as string;
  }

  function defineProperty(typeId: string, definition: Definition, by: Person = owner): Promise<string> {
    const flags = (['list', 'multilingual', 'search', 'mandatory', 'readonly'] as const).flatMap((flag) => (definition[flag] ? [{ type: flag, boolean: true }] : []));
    return expectCreated(
      [
        { type: '_type', reference: created.types.property },
        { type: '_parent', reference: typeId },
        { type: 'name', string: definition.name },
        { type: 'type', string: definition.type },
        ...flags,
        ...(definition.reference_query ? [{ type: 'reference_query', string: definition.reference_query }] : []),
        ...(definition.formula ? [{ type: 'formula', string: definition.formula }] : []),
      ],
      by,
    );
  }

  return {
    db,
    types: created.types,
    owner,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    create,
    async newPerson(name) {
      const id = await expectCreated([
        { type: '_type', reference: created.types.person },
        { type: 'name', string: name },
      ]);
      const res = await request(api.app).post(`/api/${db}/entity/${id}`).set('Authorization', owner.auth).send([{ type: '_api_key' }]);
      if (res.status !== 200) throw new Error(`key generation failed: ${res.status} ${JSON.stringify(res.body)}`);
      return signIn(api, id, writtenOf(res.body, '_api_key')[0]!.string);
    },
    async defineType(name, definitions, by = owner) {
      const typeId = await expectCreated(
        [
          { type: '_type', reference: created.types.entity },
          { type: 'name', string: name },
          { type: '_sharing', string: 'domain' },
        ],
        by,
      );
      for (const definition of definitions) await defineProperty(typeId, definition, by);
      return typeId;
    },
    defineProperty,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
