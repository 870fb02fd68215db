#!/usr/bin/env bash
# Build the fast-jar, then record a class-data-sharing (AppCDS) archive in a training run — the JVM
# policy every JVM server follows (docs/jvm-policy.md). The training run starts the application (HTTP
# server on an ephemeral loopback port), then exits (mcpbench.cds.training, CdsTraining.java); the JVM
# writes the classes it loaded to target/quarkus-app/app-cds.jsa on the way out. Redis and the API
# service point at a closed port: their clients connect lazily, so nothing is touched.
# Every later start maps that archive (-XX:SharedArchiveFile in mcpbench.toml). The archive is only valid
# for the JVM that wrote it and for the same class path, so the training run uses exactly the run's -jar
# path (Quarkus' own quarkus.package.jar.appcds records `quarkus-run.jar` relative to target/quarkus-app,
# which a run started from this directory cannot map).
set -euo pipefail
cd "$(dirname "$0")"

mvn -B -q -DskipTests package

rm -f target/quarkus-app/app-cds.jsa
PORT=0 REDIS_URL=redis://127.0.0.1:1 API_SERVICE_URL=http://127.0.0.1:1 \
java -XX:ArchiveClassesAtExit=target/quarkus-app/app-cds.jsa -Dmcpbench.cds.training=true -Dquarkus.http.host=127.0.0.1 \
    -jar target/quarkus-app/quarkus-run.jar > target/cds-training.log 2>&1 || { cat target/cds-training.log; exit 1; }
test -s target/quarkus-app/app-cds.jsa
