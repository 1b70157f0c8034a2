package io.akkaetcd.it;

import java.util.List;

/** The reference: Debian's etcd binary. */
public final class EtcdProcess extends ServerProcess {
  public static final String BINARY = "/usr/bin/etcd";

  public EtcdProcess(String... extraFlags) {
    super("etcd", List.of(extraFlags));
  }

  @Override
  protected List<String> program() {
    return List.of(BINARY);
  }
}
