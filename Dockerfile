# migronaut in a container: `docker build -t migronaut .`, then
#   docker run --rm -v "$PWD/migrations:/migrations" -e MIGRONAUT_URI=postgres://… migronaut up
# Stage 1 builds the CLI (no tests, no benchmarks) and installs its `cli` component (the stripped
# binary, the PostgreSQL and MongoDB store modules and PostgreSQL's parser, which it loads at run
# time, the man page) into
# /stage; stage 2 is a slim Debian runtime with only the shared libraries those link, running
# as an unprivileged user.
FROM debian:12 AS build
WORKDIR /src
COPY scripts/install-deps scripts/install-deps
RUN scripts/install-deps build && rm -rf /var/lib/apt/lists/*
COPY . .
# The modules are found beside the binary or in <bindir>/../lib/migronaut: `cmake --install`
# puts them in /usr/local/lib/migronaut, where the binary looks.
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DMIGRONAUT_BUILD_TESTS=OFF \
        -DMIGRONAUT_BUILD_BENCH=OFF \
 && cmake --build /build -j"$(nproc)" --target migronaut-cli migronaut-man \
 && DESTDIR=/stage cmake --install /build --component cli --strip

FROM debian:12-slim
COPY scripts/install-deps /tmp/install-deps
RUN /tmp/install-deps runtime && rm -rf /var/lib/apt/lists/* /tmp/install-deps \
 && groupadd --gid 10001 migronaut \
 && useradd --uid 10001 --gid 10001 --no-log-init --home-dir /work --shell /usr/sbin/nologin \
        migronaut \
 && install -d -o migronaut -g migronaut /work
COPY --from=build /stage/usr/local/ /usr/local/
# Numeric, so that Kubernetes' runAsNonRoot can check it.
USER 10001:10001
WORKDIR /work
ENV MIGRONAUT_MIGRATIONS_DIR=/migrations
ENTRYPOINT ["migronaut"]
CMD ["--help"]
