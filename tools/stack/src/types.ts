export interface StackEnv {
  MONGODB_URL: string;
  REDIS_URL: string;
  S3_ENDPOINT: string;
  S3_ACCESS_KEY: string;
  S3_SECRET_KEY: string;
  S3_BUCKET: string;
  S3_REGION: string;
  /** Not a server, but the one secret every API process must share: the local stack provides it too. */
  JWT_SECRET: string;
  /** The test stack's SMTP server (Mailpit; `StackOptions.mail`), for the tests that send e-mail: an SMTP_URL. */
  ENTIA_TEST_SMTP_URL?: string;
  /** Mailpit's HTTP API, where those tests read what was delivered. */
  ENTIA_TEST_MAILPIT_URL?: string;
}

export type ServerName = 'mongodb' | 'redis' | 'minio' | 'mailpit';

export interface ManagedServer {
  name: ServerName;
  pid?: number;
  port: number;
  /** Where the server's own output goes; shown when it fails. */
  logFile?: string;
  /** SIGTERM, then SIGKILL after a few seconds; resolves when the process is gone. */
  stop(): Promise<void>;
  /** SIGKILL now (simulates a crash); resolves when gone. */
  kill(): Promise<void>;
  /** SIGSTOP now (simulates a hung server: connections are accepted, nothing answers). */
  pause(): void;
  /** SIGCONT: a paused server carries on. */
  resume(): void;
  /** Start again on the same port and data dir, and wait until it answers. */
  restart(): Promise<void>;
}

/** Options every server starter accepts besides its own. */
export interface StartCommon {
  port?: number;
  dir: string;
  /** Env for resolving binaries and for the child; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** Stops waiting for the server to answer (it is stopped then): Ctrl-C while the stack starts. */
  signal?: AbortSignal;
}
