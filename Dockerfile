# The platform's one image: `docker run <image> api|worker|migrate|admin|sandbox` (docker/entrypoint.sh;
# `help` lists them). api and worker apply pending migrations as they start (under a lock); `migrate`
# applies them and exits. docker-compose.yml runs it; docs/releasing.md builds and tags it per release.
FROM node:20-bookworm-slim
WORKDIR /app
# patches/: fixes applied to dependencies by `patch-package` after install (postinstall).
COPY package.json package-lock.json .npmrc ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund
# Everything but .dockerignore's (node_modules, data, build, .git, test): sources, db/migrations
# (applied at start), datasets/ (the messaging rate card), sandbox/, docker/entrypoint.sh.
COPY . .
# Build the workflow bundle into the image so workers start without webpack.
RUN npm run build \
  && mkdir -p /app/data \
  && chown node:node /app/data
ENV NODE_ENV=production HOST=0.0.0.0 DATA_DIR=/app/data
# Not root: the processes write only DATA_DIR (a volume in docker-compose.yml).
USER node
# API 3000; the sandbox container: SMPP 2775, providers 4010, banks 4020, merchant 4030, acquirer 4040,
# bureau 4050.
EXPOSE 3000 2775 4010 4020 4030 4040 4050
ENTRYPOINT ["/app/docker/entrypoint.sh"]
CMD ["api"]
