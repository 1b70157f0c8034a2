package io.akkaetcd.it;

/** Which server the tests exercise. */
public final class Targets {
  /**
   * The one line that switches the target: true runs akka-etcd; false runs a second real etcd in
   * its place, to validate the harness and the tests themselves. {@code -Dit.target=etcd} does the
   * same without editing.
   */
  static final boolean AKKA_ETCD = !"etcd".equals(System.getProperty("it.target"));

  private Targets() {}

  /** A new, not yet started server under test. */
  public static ServerProcess underTest(String... extraFlags) {
    return AKKA_ETCD ? new AkkaEtcdProcess(extraFlags) : new EtcdProcess(extraFlags);
  }

  /** A new, not yet started reference etcd. */
  public static ServerProcess reference(String... extraFlags) {
    return new EtcdProcess(extraFlags);
  }
}
