#!/usr/bin/env bash
# Build the executable jar, then apply Spring Boot's class data sharing (CDS) recipe: extract the jar
# into a plain classpath layout and record, in a training run, an archive of the classes start-up
# loads. Every later start maps that archive instead of reading, parsing and verifying those classes
# again: about half the CPU time to ready, and a lower RSS, on this machine (see README).
set -euo pipefail
cd "$(dirname "$0")"

mvn -B -q -DskipTests package

rm -rf target/app
java -Djarmode=tools -jar target/mcpbench-java-webflux.jar extract --destination target/app

# Training run: refresh the application context and exit, writing the archive on the way out. The web
# server gets an ephemeral loopback port; Redis and the API service point at a closed port, so the
# start-up warm-up (Warmup.java) fails fast without touching anything, after loading their classes.
# JVM options that change module handling must match the run's (mcpbench.toml), or CDS drops part of
# the archive.
java -XX:ArchiveClassesAtExit=target/app/app.jsa -Dspring.context.exit=onRefresh --enable-native-access=ALL-UNNAMED \
    -jar target/app/mcpbench-java-webflux.jar --server.port=0 --server.address=127.0.0.1 \
    --spring.data.redis.url=redis://127.0.0.1:1 --mcpbench.api-url=http://127.0.0.1:1 \
    > target/cds-training.log 2>&1 || { cat target/cds-training.log; exit 1; }
test -s target/app/app.jsa
