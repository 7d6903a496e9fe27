import { isDatabaseName, type Caller } from '@entia/domain';
import type { Tenant } from '@entia/entities';
import { DatabaseRecords, type DatabaseRecord, type Store } from '@entia/store';
import { personIn, type Grant } from './auth/tokens';
import { HttpProblem, problems } from './http/problem';

export type { Tenant };

/** Resolves `{db}` of a path to its registry record, cached: a database's meta-types never change. */
export class Tenants {
  private readonly records: DatabaseRecords;

  constructor(
    private readonly store: Store,
    private readonly controlDb: string,
  ) {
    this.records = new DatabaseRecords(store.registry);
  }

  async resolve(name: string, grant: Grant | undefined): Promise<Tenant> {
    const record = await this.record(name);
    if (!record) throw problems.notFound(`No database "${name}".`);
    let caller: Caller = {};
    if (grant) {
      const personId = personIn(grant, name);
      if (personId === undefined) {
        throw new HttpProblem(403, 'wrong-database', 'Forbidden', `This token does not grant access to database "${name}".`);
      }
      caller = { personId };
    }
    return { name, record, entities: this.store.entities(name), caller, ...(grant ? { kid: grant.kid } : {}) };
  }

  private async record(name: string): Promise<DatabaseRecord | undefined> {
    if (!isDatabaseName(name, this.controlDb)) return undefined;
    return this.records.get(name);
  }
}
