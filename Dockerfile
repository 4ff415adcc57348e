# The crm-sandbox dev server in a container (docs/container.md; docs/deploy.md):
#
#   docker build -t crm-sandbox .
#   docker run --rm -p 127.0.0.1:4010:4010 crm-sandbox
#
# NODE_IMAGE is any Node 22 (22.12 or later), 24 or 26 image with npm and a `node` user (uid 1000), as the official
# ones have; the default is pinned. Every `serve` flag is an environment variable
# (--ready-delay is CRM_SANDBOX_READY_DELAY); the image sets the three a container needs.
ARG NODE_IMAGE=node:22.23.3-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No scripts: `prepare` would build before the sources are here (and the dependencies need none).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
# /app: the package as npm packs it (bin, dist, fixtures, scenarios, package.json), and its
# production dependencies only.
RUN npm run build \
 && npm pack --ignore-scripts --silent --pack-destination /tmp \
 && mkdir /app \
 && tar -xzf /tmp/crm-sandbox-*.tgz -C /app --strip-components=1 \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && mv node_modules /app/ \
 && mkdir /var/cache/node-compile-cache \
 && chown node:node /var/cache/node-compile-cache
# Node's compile cache (Node >= 22.1; older ones ignore it), filled here by starting serve once,
# on /app as the image holds it and as the user it runs as (Node keeps a cache per user id): a
# container's Node then skips compiling the CLI's modules (scripts/warm-compile-cache.mjs).
USER node
RUN NODE_COMPILE_CACHE=/var/cache/node-compile-cache node scripts/warm-compile-cache.mjs /app

FROM ${NODE_IMAGE}
COPY --from=build /app /app
COPY --from=build --chown=node:node /var/cache/node-compile-cache /var/cache/node-compile-cache
# `crm-sandbox …` for `docker exec`; /data belongs to the user the server runs as.
RUN ln -s /app/bin/crm-sandbox.js /usr/local/bin/crm-sandbox \
 && mkdir /data \
 && chown node:node /data
# All interfaces (the container's own), the documented port, and the state kept in /data: a
# volume there keeps connections, records and pending deliveries across restarts
# (CRM_SANDBOX_STATE_FILE= empty keeps them in memory only).
ENV CRM_SANDBOX_HOST=0.0.0.0 \
    CRM_SANDBOX_PORT=4010 \
    CRM_SANDBOX_STATE_FILE=/data/state.json \
    NODE_COMPILE_CACHE=/var/cache/node-compile-cache
VOLUME /data
EXPOSE 4010
USER node
WORKDIR /data
# node:http, not fetch or curl: slim images have no curl, and node starts fastest without undici.
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "require('node:http').get('http://127.0.0.1:' + (process.env.CRM_SANDBOX_PORT || 4010) + '/sandbox/health', (res) => process.exit(res.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1))"]
# node is PID 1: serve answers SIGTERM and SIGINT itself (saves the state file, closes the server).
ENTRYPOINT ["node", "/app/bin/crm-sandbox.js"]
CMD ["serve"]
