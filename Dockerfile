# One image for the scale-out processes (`npm run api`, `npm run worker`) and the sandbox parties
# (`npx tsx sandbox/main.ts`); see docker-compose.yml.
FROM node:20-bookworm-slim
WORKDIR /app
# patches/: fixes applied to dependencies by `patch-package` after install (postinstall).
COPY package.json package-lock.json .npmrc ./
COPY patches ./patches
RUN npm install --no-audit --no-fund
# Everything but .dockerignore's node_modules, data, build, .git: sources, db/migrations (applied at
# start), datasets/ (the messaging rate card), sandbox/.
COPY . .
# Build the workflow bundle into the image so workers start without webpack.
RUN npm run build
ENV NODE_ENV=production HOST=0.0.0.0
# API 3000; the sandbox container: SMPP 2775, providers 4010, banks 4020, merchant 4030.
EXPOSE 3000 2775 4010 4020 4030
CMD ["npm", "run", "api"]
