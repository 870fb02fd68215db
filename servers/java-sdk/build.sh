#!/usr/bin/env bash
# Build the executable jar (target/app/mcpbench-java-sdk.jar, its dependencies in target/app/lib), then
# record a class-data-sharing (AppCDS) archive in a training run — the JVM policy every JVM server follows
# (docs/jvm-policy.md). The training run starts the server (warm-up, Tomcat on an ephemeral loopback port)
# and exits (mcpbench.cds.training, Main.java); the JVM writes the classes it loaded to target/app/app.jsa
# on the way out. Redis and the API service point at a closed port, so the warm-up fails fast and touches
# nothing. The archive is only valid for the JVM that wrote it and the same class path, so the training
# run uses exactly the run's -jar path.
set -euo pipefail
cd "$(dirname "$0")"

mvn -B -q -DskipTests package

rm -f target/app/app.jsa
PORT=0 HOST=127.0.0.1 REDIS_URL=redis://127.0.0.1:1 API_SERVICE_URL=http://127.0.0.1:1 \
java -XX:ArchiveClassesAtExit=target/app/app.jsa -Dmcpbench.cds.training=true \
    -jar target/app/mcpbench-java-sdk.jar > target/cds-training.log 2>&1 || { cat target/cds-training.log; exit 1; }
test -s target/app/app.jsa
