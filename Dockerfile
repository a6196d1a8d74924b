# The three tessera binaries in one small image; docker-compose.yml picks
# the command per service.
FROM golang:1.26-bookworm AS build
WORKDIR /src
# Dependencies first: this layer is reused until go.mod/go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# .git is not in the build context: --version's revision comes from the
# build argument (docker compose build passes TESSERA_REVISION).
ARG REVISION=unknown
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X github.com/tessera-solver/tessera/internal/version.revision=${REVISION}" -o /out/ ./producer ./solverd ./results

# debian-slim rather than distroless: the tables directory must exist and
# be writable by the non-root user, and operators want a shell to run
# `results dist` or `solverd bfs` inside a container.
FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /var/lib/tessera tessera \
 && mkdir -p /var/lib/tessera/tables \
 && chown -R tessera /var/lib/tessera
COPY --from=build /out/ /usr/local/bin/
ENV TESSERA_SOLVER_TABLES_DIR=/var/lib/tessera/tables
VOLUME /var/lib/tessera/tables
USER tessera
WORKDIR /var/lib/tessera
CMD ["solverd", "--help"]
