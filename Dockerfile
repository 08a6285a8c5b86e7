# migronaut in a container: `docker build -t migronaut .`, then
#   docker run --rm -v "$PWD/migrations:/migrations" -e MIGRONAUT_URI=postgres://… migronaut up
# Stage 1 builds the CLI (no tests, no benchmarks); stage 2 is a slim Debian runtime with only
# the shared libraries it links, running as an unprivileged user.
FROM debian:12 AS build
WORKDIR /src
COPY scripts/install-deps scripts/install-deps
RUN scripts/install-deps build && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DMIGRONAUT_BUILD_TESTS=OFF \
        -DMIGRONAUT_BUILD_BENCH=OFF \
 && cmake --build /build -j"$(nproc)" --target migronaut-cli \
 && strip /build/src/cli/migronaut

FROM debian:12-slim
COPY scripts/install-deps /usr/local/lib/migronaut/install-deps
RUN /usr/local/lib/migronaut/install-deps runtime && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /work --create-home migronaut
COPY --from=build /build/src/cli/migronaut /usr/local/bin/migronaut
USER migronaut
WORKDIR /work
ENV MIGRONAUT_MIGRATIONS_DIR=/migrations
ENTRYPOINT ["migronaut"]
CMD ["--help"]
