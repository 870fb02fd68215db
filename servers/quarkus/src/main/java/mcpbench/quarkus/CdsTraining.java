package mcpbench.quarkus;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

/**
 * Class-data-sharing training run (build.sh, Dockerfile; docs/jvm-policy.md): with
 * -Dmcpbench.cds.training=true the application starts as always (static and runtime init, HTTP server up),
 * then exits, and the JVM writes every class it loaded to the archive (-XX:ArchiveClassesAtExit).
 * The same full start as the other JVM servers' training runs; Quarkus' own
 * quarkus.package.jar.appcds stops after static init and records a class path relative to
 * target/quarkus-app, which the run (started from the server directory) cannot map.
 */
@Singleton
class CdsTraining {

    void onStart(@Observes StartupEvent event) {
        if (Boolean.getBoolean("mcpbench.cds.training")) {
            Quarkus.asyncExit(0);
        }
    }
}
