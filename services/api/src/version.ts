import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The package version, read once; the same from src/ (tests) and dist/ (production). */
export const version: string = (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
