import { pino, type DestinationStream, type Logger } from 'pino';
import { LOG_REDACTION } from './log-redaction';

/**
 * The API's logger: JSON lines on stdout (or `destination`, which tests capture), with every
 * credential redacted (`LOG_REDACTION`) whatever the level.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'api' }, timestamp: pino.stdTimeFunctions.isoTime, redact: LOG_REDACTION };
  return destination ? pino(options, destination) : pino(options);
}
