import { ObjectId } from 'mongodb';

/** A new entity or value id: an ObjectId as 24 hex characters (SPEC §2). */
export function newId(): string {
  return new ObjectId().toHexString();
}
