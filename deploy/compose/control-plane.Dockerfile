# The control plane's image for deploy/compose/compose.yaml. Build context: the repository root
#   docker build -f deploy/compose/control-plane.Dockerfile -t devplein/control-plane:local .
# It runs the TypeScript sources with tsx, as `npm start` and the systemd unit do.
FROM node:20-bookworm-slim

WORKDIR /opt/devplein

# Only what the control plane needs; never ./data (development certificates, embedded database)
# or a .env of the machine that builds.
COPY package.json package-lock.json .npmrc tsconfig.json tsconfig.base.json ./
COPY proto/ proto/
COPY server-kit/ server-kit/
COPY contract/ contract/
COPY control-plane/ control-plane/
COPY host-agent/package.json host-agent/package.json
COPY web/ web/
COPY config/ config/

# npm ci installs the workspaces (tsx is among the root's dependencies), then the web app is built.
RUN npm ci --no-audit --no-fund \
 && npm run build:web \
 && rm -rf web/node_modules/.vite

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/var/lib/devplein \
    WEB_DIST=/opt/devplein/web/dist

RUN mkdir -p /var/lib/devplein && chown node:node /var/lib/devplein
USER node
EXPOSE 8080
VOLUME /var/lib/devplein

# Pending migrations run at start-up.
CMD ["node", "--import", "tsx", "--conditions=development", "control-plane/src/main.ts"]
