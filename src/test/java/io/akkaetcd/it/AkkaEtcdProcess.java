package io.akkaetcd.it;

import java.util.List;

/** akka-etcd's {@code io.akkaetcd.server.Main} in its own JVM, on the test class path. */
public final class AkkaEtcdProcess extends ServerProcess {

  public AkkaEtcdProcess(String... extraFlags) {
    super("akka-etcd", List.of(extraFlags));
  }

  @Override
  protected List<String> program() {
    return List.of(System.getProperty("java.home") + "/bin/java", "-Xmx256m",
        "-cp", System.getProperty("java.class.path"), "io.akkaetcd.server.Main");
  }
}
