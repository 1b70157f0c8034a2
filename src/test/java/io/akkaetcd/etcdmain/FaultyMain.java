package io.akkaetcd.etcdmain;

import io.akkaetcd.server.FileFaults;
import java.nio.file.Path;

/**
 * The launcher with tests' fault injection: as {@link Main}, plus links cut and quarantines asked
 * for through the file named by the system property {@value #BLOCKED_PEERS_FILE}
 * ({@link FileFaults}). Started by the e2e tests' ServerProcess for cluster members; never part
 * of the server's jar.
 */
public final class FaultyMain {
  public static final String BLOCKED_PEERS_FILE = "akka-etcd.test.blocked-peers-file";

  private FaultyMain() {}

  public static void main(String[] args) {
    String file = System.getProperty(BLOCKED_PEERS_FILE);
    if (file == null || file.isEmpty()) {
      throw new IllegalArgumentException("-D" + BLOCKED_PEERS_FILE + " is required");
    }
    Main.run(args, new FileFaults(Path.of(file)));
  }
}
