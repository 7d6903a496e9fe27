import type { UploadTarget } from '@entia/files';
import type { ChangeRecord } from '@entia/domain';
import type { ChangeLog, Generations, JobProducer } from '@entia/jobs';
import type { EntityWriter, Leases, Store } from '@entia/store';
import type { InvitationKeys } from './invitation-token';
import type { SchemaCache } from './schema';
import type { TargetCache } from './target-cache';

/** Where failures that must not fail the caller are reported (a pino logger fits). */
export interface FailureLog {
  error(details: object, message: string): void;
}

/** What keeping derived data fresh talks to; the API (for /aggregate) and the worker both have it. */
export interface SettleDeps {
  store: Store;
  /** The one write path of entities (leased, with the outbox). */
  writer: EntityWriter;
  jobs: JobProducer;
  /** Tokens that cached copies and schemas are keyed by; every write replaces the entity's. */
  generations: Generations;
  schemas: SchemaCache;
  /** Each database's change log: every committed change is published there. */
  changes: ChangeLog<ChangeRecord>;
  /** Removes a stored object; removing an absent one succeeds. */
  objects: { remove(key: string): Promise<void> };
  logger: FailureLog;
}

/** Object storage as the use cases need it: signed URLs, and whether an upload landed. */
export interface Objects {
  remove(key: string): Promise<void>;
  /** Resolves when an upload signed now can work (the bucket is there); throws, answered 503, when not. */
  whenWritable(): Promise<void>;
  presignUpload(key: string, file: { filename: string; filesize: number; filetype: string }, expiresIn: number): Promise<UploadTarget>;
  /** With `inlineAs`, a URL the browser shows in place as that content type; without, a download. */
  presignDownload(key: string, filename: string, expiresIn: number, inlineAs?: string): Promise<string>;
  exists(key: string): Promise<boolean>;
  /** Copies an object server-side; false when `from` does not exist. */
  copy(from: string, to: string): Promise<boolean>;
}

/** The configured bounds of a write. */
export interface WriteSettings {
  maxStringLength: number;
  maxFileBytes: number;
  /** How long a signed upload URL lives. */
  uploadUrlTtlSeconds: number;
}

/**
 * Words that stand for something once for a while (the API's `SingleUse` in Redis): only a word's
 * hash is kept, and taking it deletes it in the same step, so of two takers one gets the value.
 */
export interface OnceStore<T> {
  keep(word: string, value: T): Promise<void>;
  /** What the word stands for, taken: undefined when unknown, used or expired. */
  take(word: string): Promise<T | undefined>;
}

/** What an invitation's server-side record holds (its token is the word it is kept under). */
export interface InvitationRecord {
  db: string;
  person: string;
}

/** Invitations: the keys their tokens are signed with, and the record that makes each usable once. */
export interface InvitationDeps {
  keys: InvitationKeys;
  /** Keeps each invitation for INVITATION_SECONDS. */
  pending: OnceStore<InvitationRecord>;
}

/** What every use case talks to, given by the service that runs it. */
export interface EntitiesDeps extends SettleDeps {
  /** The leases the writer takes; also held around writes of a database's property definitions. */
  leases: Leases;
  objects: Objects;
  settings: WriteSettings;
  /** The entities writes reference (and their owners), cached under their generation tokens. */
  targets: TargetCache;
  /** Absent where invitations are neither sent nor accepted (tools, the worker): accepting one is then refused. */
  invitations?: InvitationDeps;
}
