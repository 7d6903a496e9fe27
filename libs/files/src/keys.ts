/** Where a file value's bytes live (SPEC §8): one object per value. */
export function objectKey(db: string, entityId: string, valueId: string): string {
  return `${db}/${entityId}/${valueId}`;
}
