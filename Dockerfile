# One image for both scale-out processes: `npm run api` and `npm run worker` (see docker-compose.yml).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
# Build the workflow bundle into the image so workers start without webpack.
RUN npm run build
ENV NODE_ENV=production HOST=0.0.0.0
EXPOSE 3000
CMD ["npm", "run", "api"]
