package io.akkaetcd.it;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * akka-etcd as a separate JVM: {@code java -Xmx256m -cp <test class path>
 * io.akkaetcd.server.Main <etcd flags>}. Extra JVM options come from
 * {@code -Dit.akka.jvmopts="..."}.
 */
final class AkkaEtcdProcess extends ServerProcess {
  static final String MAIN = "io.akkaetcd.server.Main";

  private AkkaEtcdProcess(List<String> extraFlags) {
    super("akka-etcd", extraFlags);
  }

  static AkkaEtcdProcess start(List<String> extraFlags) {
    return (AkkaEtcdProcess) new AkkaEtcdProcess(extraFlags).launch();
  }

  @Override
  protected List<String> command() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    String opts = System.getProperty("it.akka.jvmopts", "").trim();
    if (!opts.isEmpty()) {
      command.addAll(Arrays.asList(opts.split("\\s+")));
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(MAIN);
    command.addAll(etcdFlags());
    return command;
  }
}
