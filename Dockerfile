# syntax=docker/dockerfile:1
#
# One build, two images: the API and the worker share every layer but the last.
#
#   docker build --target api    -t entia-api .
#   docker build --target worker -t entia-worker .
#
# Their commands are exactly the ones `npm start` runs (tools/stack/src/app.ts), and the process
# tests start the same built files, so what CI tests is what the containers run
# (tools/deploy/test/dockerfile.test.ts checks it).

# The one Node.js the project runs on, exactly as `.node-version` names it: tests and CI run on that
# same binary (tools/stack fetches it), and tools/deploy/test/node-line.test.ts holds the two equal.
# Upgrade both together (docs/decisions.md, "One Node.js line").
ARG NODE_VERSION=26.10.0

FROM node:${NODE_VERSION}-trixie-slim AS base
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

# The npm manifests of the root and of every workspace package, before any source, so the install
# layers are reused while only code changes. npm needs all of them to read the lockfile: a new
# workspace package must be added here (the deployment tests fail until it is).
FROM base AS manifests
COPY package.json package-lock.json .npmrc ./
COPY libs/client/package.json libs/client/
COPY libs/config/package.json libs/config/
COPY libs/domain/package.json libs/domain/
COPY libs/entities/package.json libs/entities/
COPY libs/files/package.json libs/files/
COPY libs/health/package.json libs/health/
COPY libs/jobs/package.json libs/jobs/
COPY libs/telemetry/package.json libs/telemetry/
COPY libs/store/package.json libs/store/
COPY services/api/package.json services/api/
COPY services/worker/package.json services/worker/
COPY tools/deploy/package.json tools/deploy/
COPY tools/stack/package.json tools/stack/

# Everything, dev dependencies included, and the same build as CI's (`npm run build` = `tsc -b`,
# which also type-checks the tests). `npm install`, not `npm ci`: docs/decisions.md, "Install".
FROM manifests AS build
RUN npm install
COPY tsconfig.base.json tsconfig.json tsconfig.tests.json jest.config.ts ./
COPY libs libs
COPY services services
COPY tools tools
RUN npm run build

# Production dependencies of the two services only (no TypeScript, jest, stack tooling).
FROM manifests AS prod-deps
RUN npm install --omit=dev --workspace=@entia/api --workspace=@entia/worker

# What both images run on: production dependencies, the compiled packages, tini as PID 1 (it
# forwards SIGTERM to node and reaps zombies; both services drain on SIGTERM), an unprivileged user.
FROM base AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
COPY --from=prod-deps /app ./
COPY --from=build /app/libs/config/dist libs/config/dist
COPY --from=build /app/libs/domain/dist libs/domain/dist
COPY --from=build /app/libs/entities/dist libs/entities/dist
COPY --from=build /app/libs/files/dist libs/files/dist
COPY --from=build /app/libs/health/dist libs/health/dist
COPY --from=build /app/libs/jobs/dist libs/jobs/dist
COPY --from=build /app/libs/telemetry/dist libs/telemetry/dist
COPY --from=build /app/libs/store/dist libs/store/dist
COPY --from=build /app/services/api/dist services/api/dist
COPY --from=build /app/services/worker/dist services/worker/dist
USER node
ENTRYPOINT ["/usr/bin/tini", "--"]

# The worker: BullMQ processors; /healthz, /readyz and /metrics on WORKER_PORT.
FROM runtime AS worker
ENV WORKER_PORT=3001
EXPOSE 3001
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.WORKER_PORT||3001)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "services/worker/dist/main.js"]

# The API (the default target): HTTP on PORT; also holds the create-database command
# (`node services/api/dist/cli/create-database.js <name> --json`).
FROM runtime AS api
ENV PORT=3000
# METRICS_PORT (9464, Prometheus) is deliberately not EXPOSEd: `docker run -P` would publish it.
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "services/api/dist/main.js"]
