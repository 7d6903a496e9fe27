import { DATABASE_SPELLING_PATTERN } from '@entia/domain';
import { Type, type Static } from '@sinclair/typebox';

/**
 * Every setting Entia reads from the environment, in one place. The README's configuration table
 * is written from this list: a setting that is not here does not exist.
 */
export const ConfigSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('test'), Type.Literal('production')], {
    default: 'development',
    description: 'Runtime mode.',
  }),
  HOST: Type.String({ default: '0.0.0.0', minLength: 1, description: 'Interface the API (and its metrics, and the worker\'s health endpoint) listens on.' }),
  PORT: Type.Integer({ default: 3000, minimum: 0, maximum: 65535, description: 'API port (0 = any free port).' }),
  METRICS_PORT: Type.Integer({
    default: 9464,
    minimum: 0,
    maximum: 65535,
    description: 'Port of the API\'s Prometheus /metrics, apart from PORT so that it is never routed to the public (0 = any free port).',
  }),
  WORKER_PORT: Type.Integer({
    default: 3001,
    minimum: 0,
    maximum: 65535,
    description: 'Port of the worker health and metrics endpoint.',
  }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info', description: 'pino log level.' },
  ),
  MONGODB_URL: Type.String({
    pattern: '^mongodb(\\+srv)?://',
    description: 'MongoDB (or FerretDB) connection string.',
  }),
  MONGODB_CONTROL_DB: Type.String({
    default: 'entia',
    pattern: DATABASE_SPELLING_PATTERN,
    description: 'Database holding the registry of databases and the API-key index.',
  }),
  MONGODB_TIMEOUT_MS: Type.Integer({
    default: 5000,
    minimum: 100,
    maximum: 600000,
    description: 'Time limit (maxTimeMS) of every query; one that runs out is answered 503. Reachability is DEPENDENCY_TIMEOUT_MS.',
  }),
  MONGODB_COMMAND_METRICS: Type.Boolean({
    default: false,
    description:
      'Count every MongoDB command by name (mongodb_commands_total on the metrics port; what the load benchmark divides by requests). Off by default: the driver then decodes every reply a second time, about 3 µs per KiB.',
  }),
  DEPENDENCY_TIMEOUT_MS: Type.Integer({
    default: 1000,
    minimum: 100,
    maximum: 60000,
    description:
      'How long MongoDB, Redis or object storage may take to connect, to be found, or to answer a Redis command or a storage request before it counts as unreachable and the request is answered 503.',
  }),
  ADMIN_WAIT_MS: Type.Integer({
    default: 60000,
    minimum: 0,
    maximum: 3600000,
    description:
      'How long an entia-admin command (migrate, create-database…) waits for MongoDB (and Redis, for the commands that use it) to answer a first connect before it gives up with one line (exit 1); it says once what it waits for. The API and the worker wait for ever (their /readyz says why).',
  }),
  JWT_SECRET: Type.String({
    default: 'none',
    minLength: 1,
    description:
      'HS256 secret signing and verifying the JWTs, at least 32 characters, the same on every API process; the same as JWT_SECRETS=default:<secret>. Set this or JWT_SECRETS, not both.',
  }),
  JWT_SECRETS: Type.String({
    default: 'none',
    minLength: 1,
    description:
      'HS256 secrets for rotating without downtime: comma-separated kid:secret (kid 1-32 of A-Z a-z 0-9 _ -, secret at least 32 characters, at most 8 entries); the first signs new tokens, every one verifies tokens carrying its kid. Set this or JWT_SECRET, not both.',
  }),
  KEY_RECHECK_MS: Type.Integer({
    default: 30000,
    minimum: 0,
    maximum: 60000,
    description: 'How long a token\'s API key is known to be live before it is looked up again: revocation takes effect within this time.',
  }),
  REDIS_URL: Type.String({
    pattern: '^rediss?://',
    description: 'Redis for what must not be lost: queues, write leases, idempotency records, change logs, webhook and sign-in state (maxmemory-policy noeviction).',
  }),
  CACHE_REDIS_URL: Type.String({
    default: 'REDIS_URL',
    pattern: '^(REDIS_URL|rediss?://.+)$',
    description:
      'Redis for what may be lost: cached GET responses, their generation tokens and the rate-limit counters (an evicting policy such as allkeys-lru suits it); REDIS_URL: the same server as REDIS_URL.',
  }),
  S3_ENDPOINT: Type.String({ pattern: '^https?://[^/]+/?$', description: 'S3/MinIO endpoint URL, e.g. http://127.0.0.1:9000.' }),
  S3_ACCESS_KEY: Type.String({ minLength: 1, description: 'S3 access key.' }),
  S3_SECRET_KEY: Type.String({ minLength: 1, description: 'S3 secret key.' }),
  S3_BUCKET: Type.String({
    default: 'entia',
    pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$',
    description: 'Bucket for file values (created at start when missing).',
  }),
  S3_REGION: Type.String({ default: 'us-east-1', minLength: 1, description: 'S3 region used for signing.' }),
  REDIS_PREFIX: Type.String({
    default: 'entia',
    pattern: '^[A-Za-z0-9_:-]{1,64}$',
    description: 'Prefix of every Redis key Entia writes (queues, rate limits, cache); processes sharing it share them.',
  }),
  WORKER_CONCURRENCY: Type.Integer({ default: 4, minimum: 1, maximum: 256, description: 'Jobs one worker runs at once.' }),
  WORKER_LOCK_MS: Type.Integer({
    default: 30000,
    minimum: 1000,
    maximum: 600000,
    description: 'How long a job stays claimed by a worker without a heartbeat: a crashed worker\'s jobs run again after it.',
  }),
  CACHE_TTL_SECONDS: Type.Integer({
    default: 300,
    minimum: 0,
    maximum: 86400,
    description: 'Lifetime of a cached GET response in Redis (writes invalidate earlier); 0 turns the response cache off.',
  }),
  MAX_STRING_LENGTH: Type.Integer({
    default: 10000,
    minimum: 1,
    maximum: 1000000,
    description: 'Longest value of a string property, in characters (text properties allow 1 000 000).',
  }),
  UPLOAD_URL_TTL_SECONDS: Type.Integer({
    default: 900,
    minimum: 1,
    maximum: 604800,
    description: 'Lifetime of a signed upload URL (interface: 15 minutes; clients PUT at once).',
  }),
  MAX_FILE_BYTES: Type.Integer({
    default: 5368709120,
    minimum: 1,
    maximum: 5368709120,
    description: 'Largest file value accepted (filesize), in bytes; 5 GiB is the most one S3 PUT takes.',
  }),
  THUMBNAIL_CONCURRENCY: Type.Integer({
    default: 2,
    minimum: 1,
    maximum: 64,
    description: 'Thumbnails one API process renders at once.',
  }),
  THUMBNAIL_QUEUE: Type.Integer({
    default: 16,
    minimum: 0,
    maximum: 10000,
    description: 'Thumbnail requests one API process lets wait for a renderer; more, or a wait longer than THUMBNAIL_TIMEOUT_SECONDS, is 503 with Retry-After.',
  }),
  THUMBNAIL_TIMEOUT_SECONDS: Type.Integer({
    default: 10,
    minimum: 1,
    maximum: 300,
    description: 'Longest reading of a thumbnail\'s source and, apart, its rendering; a rendering that runs out is 422.',
  }),
  THUMBNAIL_MAX_SOURCE_BYTES: Type.Integer({
    default: 52428800,
    minimum: 1,
    maximum: 1073741824,
    description: 'Largest file a thumbnail is made of, in bytes; a larger one is 422.',
  }),
  BODY_LIMIT_BYTES: Type.Integer({
    default: 1048576,
    minimum: 1024,
    maximum: 104857600,
    description: 'Largest accepted request body; larger is 413.',
  }),
  REQUEST_TIMEOUT_MS: Type.Integer({
    default: 30000,
    minimum: 1000,
    maximum: 600000,
    description:
      'A request whose headers and body have not all arrived this long after it began is answered 408 and its connection closed (within a second of it); headers alone get 10 s, or this, if shorter.',
  }),
  RATE_LIMIT_WINDOW_MS: Type.Integer({ default: 60000, minimum: 1000, description: 'Rate-limit window.' }),
  RATE_LIMIT_MAX: Type.Integer({
    default: 1200,
    minimum: 1,
    description: 'Requests one client (a signed-in person, else an IP) may make per window; more is 429.',
  }),
  CORS_ORIGINS: Type.String({
    default: 'none',
    minLength: 1,
    description:
      'Browser origins allowed to call the API (CORS): comma-separated origins such as https://app.example.com, * for any, none for no browser access. Unset: * when NODE_ENV is development, else none.',
  }),
  TRUST_PROXY_HOPS: Type.Integer({
    default: 0,
    minimum: 0,
    maximum: 10,
    description: 'Reverse proxies in front of the API whose X-Forwarded-For is trusted (for per-IP limits).',
  }),
  READINESS_TIMEOUT_MS: Type.Integer({
    default: 2000,
    minimum: 100,
    maximum: 60000,
    description: 'Time each dependency gets to answer a /readyz probe.',
  }),
  SCHEMA_RECHECK_MS: Type.Integer({
    default: 5000,
    minimum: 100,
    maximum: 300000,
    description: 'While the stored schema is older than this version needs (or unread), how often the API and the worker read it again: they start serving this long at most after `entia-admin migrate` has finished.',
  }),
  WRITE_WAIT_MS: Type.Integer({
    default: 10000,
    minimum: 0,
    maximum: 120000,
    description: 'How long a write waits for its turn while others write the same entity; beyond it the answer is 409 with Retry-After.',
  }),
  WRITE_LEASE_MS: Type.Integer({
    default: 5000,
    minimum: 1000,
    maximum: 600000,
    description: 'How long an entity\'s write lease in Redis outlives a holder that died (it is renewed while held): the entity is writable again after this.',
  }),
  SWEEP_INTERVAL_MS: Type.Integer({
    default: 10000,
    minimum: 500,
    maximum: 600000,
    description: 'How often the worker settles entities whose derived data a lost or failed job left pending (marks older than this); every third round it also reads each database\'s outboxes unsettled for longer.',
  }),
  HISTORY_RETENTION_DAYS: Type.Number({
    default: 90,
    minimum: 0,
    maximum: 36500,
    description: 'How long the history of a deleted entity stays readable by its last owners; the worker removes it after that (checked hourly). Fractions of a day are allowed.',
  }),
  CHANGE_LOG_MAX_EVENTS: Type.Integer({
    default: 10000,
    minimum: 1,
    maximum: 10000000,
    description: 'Events each database\'s change log keeps (a Redis stream); older ones are dropped, and a subscriber resuming from before them gets a `reset` event.',
  }),
  CHANGE_LOG_MAX_AGE_SECONDS: Type.Integer({
    default: 86400,
    minimum: 0,
    maximum: 31536000,
    description: 'Events older than this are dropped from the change log (0: only CHANGE_LOG_MAX_EVENTS bounds it).',
  }),
  CHANGE_STREAMS_MAX: Type.Integer({
    default: 1000,
    minimum: 0,
    maximum: 100000,
    description: 'Change streams (`GET /api/{db}/changes`) one API process keeps open; more is 503 with `Retry-After`.',
  }),
  CHANGE_STREAMS_PER_PERSON: Type.Integer({
    default: 10,
    minimum: 1,
    maximum: 10000,
    description: 'Change streams one person (or, anonymous, one IP) may have open at once across all API processes; more is 429.',
  }),
  CHANGE_STREAM_HEARTBEAT_MS: Type.Integer({
    default: 15000,
    minimum: 100,
    maximum: 300000,
    description: 'A change stream with nothing to send sends a comment this often, so that proxies keep it open and dead clients are noticed.',
  }),
  CHANGE_STREAM_BUFFER_BYTES: Type.Integer({
    default: 1048576,
    minimum: 1024,
    maximum: 67108864,
    description: 'Bytes a change stream may hold unsent for a slow client; past it the stream is closed with a `dropped` event (the client resumes with Last-Event-ID).',
  }),
  WEBHOOK_ALLOWED_HOSTS: Type.String({
    default: 'none',
    maxLength: 4096,
    description: 'Comma-separated hosts, IP addresses or CIDR ranges webhooks may call although they are private, loopback or link-local (refused otherwise); `none` for none.',
  }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({
    default: 10000,
    minimum: 100,
    maximum: 120000,
    description: 'Time a webhook receiver gets to answer one delivery; longer counts as a failure and is retried.',
  }),
  WEBHOOK_RETRY_SECONDS: Type.Integer({
    default: 86400,
    minimum: 0,
    maximum: 2592000,
    description: 'How long a failing webhook delivery is retried, with exponential backoff (WEBHOOK_BACKOFF_MS doubling up to an hour), before it is given up.',
  }),
  WEBHOOK_BACKOFF_MS: Type.Integer({
    default: 1000,
    minimum: 10,
    maximum: 3600000,
    description: 'Delay before the first retry of a failed webhook delivery; each further retry waits twice as long (at most an hour).',
  }),
  PUBLIC_URL: Type.String({
    default: 'none',
    pattern: '^(none|https?://[^?#\\s]+)$',
    description:
      'The API\'s address as browsers and OpenID providers reach it (https://api.example.com); the sign-in callback is PUBLIC_URL/api/auth/oidc/<provider>/callback. Required with OIDC_PROVIDERS.',
  }),
  OIDC_PROVIDERS: Type.String({
    default: 'none',
    minLength: 1,
    description:
      'OpenID Connect providers people sign in with, as JSON: {"<name>": {"issuer": "https://…", "clientId": "…", "clientSecret": "…", "scope": "openid email profile"}}; none for none. Issuers are https (http only on localhost).',
  }),
  OIDC_REDIRECT_URIS: Type.String({
    default: 'none',
    minLength: 1,
    description: 'Comma-separated addresses of your apps a sign-in may return to (compared exactly); none for none. Required with OIDC_PROVIDERS.',
  }),
  WEBAUTHN_RP_ID: Type.String({
    default: 'none',
    pattern: '^(none|[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?)$',
    description: 'The domain passkeys are bound to (the relying party ID: example.com, localhost); none turns passkeys off.',
  }),
  WEBAUTHN_RP_NAME: Type.String({ default: 'Entia', minLength: 1, maxLength: 64, description: 'The name authenticators show for the relying party.' }),
  WEBAUTHN_ORIGINS: Type.String({
    default: 'none',
    minLength: 1,
    description: 'Comma-separated origins of the web apps passkeys are used from, each on WEBAUTHN_RP_ID (https://app.example.com). Required with WEBAUTHN_RP_ID.',
  }),
  // Invitations: e-mailed through SMTP_URL, linking to APP_URL.
  SMTP_URL: Type.String({
    default: 'none',
    pattern: '^(none|smtps?://\\S+)$',
    description:
      'SMTP server invitations are e-mailed through: smtp://[user:password@]host[:port] (STARTTLS when the server offers it) or smtps://… (TLS from the start); a secret, never logged. none: an invitation\'s link is answered once to the inviter instead. Needs SMTP_FROM and APP_URL.',
  }),
  SMTP_FROM: Type.String({
    default: 'none',
    pattern: '^[^\\r\\n]{1,254}$',
    description: 'The From of invitation e-mails: an address, or "Name <address>". Required with SMTP_URL.',
  }),
  APP_URL: Type.String({
    default: 'none',
    pattern: '^(none|https?://[^?#\\s]+)$',
    description:
      'The address of the web app invitations link to (Entu\'s client: https://entu.app), as <APP_URL>/<db>/invite?token=…; none: the link is not made (without SMTP_URL the inviter gets the token alone). Required with SMTP_URL.',
  }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({
    default: 15000,
    minimum: 0,
    maximum: 600000,
    description: 'Grace period on SIGTERM: requests in flight (API) and running jobs (worker) finish within it; the process has exited by then (code 1 if it cut them short).',
  }),
  // Traces: the standard OpenTelemetry variables, as far as Entia reads them.
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.String({
    default: 'none',
    pattern: '^(none|https?://[^\\s?#]+)$',
    description:
      'OTLP/HTTP collector base URL (traces go to <url>/v1/traces); setting it (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) turns tracing on. none: nothing of the OpenTelemetry SDK is loaded.',
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: Type.String({
    default: 'none',
    pattern: '^(none|https?://[^\\s?#]+)$',
    description: 'Full OTLP/HTTP traces URL (used as given, e.g. http://collector:4318/v1/traces); wins over OTEL_EXPORTER_OTLP_ENDPOINT.',
  }),
  OTEL_SERVICE_NAME: Type.String({
    default: 'none',
    pattern: '^[A-Za-z0-9._/-]{1,128}$',
    description: 'service.name of the spans; none: entia-api for the API, entia-worker for the worker.',
  }),
  OTEL_TRACES_SAMPLER: Type.Union(
    ['parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio', 'always_on', 'always_off', 'traceidratio'].map((s) => Type.Literal(s)),
    { default: 'parentbased_always_on', description: 'Which traces are kept (OpenTelemetry\'s standard samplers); parentbased_* follow a caller\'s traceparent.' },
  ),
  OTEL_TRACES_SAMPLER_ARG: Type.Number({
    default: 1,
    minimum: 0,
    maximum: 1,
    description: 'The ratio of traces kept by the traceidratio samplers (0 to 1).',
  }),
});

export type Config = Static<typeof ConfigSchema>;
