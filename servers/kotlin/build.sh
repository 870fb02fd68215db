#!/usr/bin/env bash
# Build the executable fat jar (maven-shade-plugin), then record a class-data-sharing (AppCDS) archive in a
# training run — the JVM policy every JVM server follows (docs/jvm-policy.md). The training run starts the
# application (Ktor on Netty, on an ephemeral loopback port), then exits (mcpbench.cds.training, Main.kt);
# the JVM writes the classes it loaded to target/app.jsa on the way out. Redis and the API service point at
# a closed port: Lettuce's asynchronous connect fails fast and the HTTP client connects lazily, so nothing
# is touched. Every later start maps that archive (-XX:SharedArchiveFile in mcpbench.toml). The archive is
# only valid for the JVM that wrote it and for the same class path, so the training run uses exactly the
# run's -jar path.
set -euo pipefail
cd "$(dirname "$0")"

mvn -B -q -DskipTests package

rm -f target/app.jsa
HOST=127.0.0.1 PORT=0 REDIS_URL=redis://127.0.0.1:1 API_SERVICE_URL=http://127.0.0.1:1 \
java -XX:ArchiveClassesAtExit=target/app.jsa -Dmcpbench.cds.training=true \
    -jar target/mcpbench-kotlin.jar > target/cds-training.log 2>&1 || { cat target/cds-training.log; exit 1; }
test -s target/app.jsa
