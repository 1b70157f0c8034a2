package io.akkaetcd.it;

import java.util.ArrayList;
import java.util.List;

/** Real etcd ({@code /usr/bin/etcd} unless {@code -Dit.etcd=...}) as a single member. */
final class EtcdProcess extends ServerProcess {
  static final String BINARY = System.getProperty("it.etcd", "/usr/bin/etcd");

  private EtcdProcess(List<String> extraFlags) {
    super("etcd", extraFlags);
  }

  static EtcdProcess start(List<String> extraFlags) {
    return (EtcdProcess) new EtcdProcess(extraFlags).launch();
  }

  @Override
  protected List<String> command() {
    List<String> command = new ArrayList<>();
    command.add(BINARY);
    command.addAll(etcdFlags());
    return command;
  }
}
