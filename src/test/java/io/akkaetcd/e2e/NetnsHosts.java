package io.akkaetcd.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Hosts for {@link ServerProcess} members made by {@code bin/netns-cluster net up}: each a network
 * namespace with one address on a bridge of its own, reached from this (the root) namespace through
 * the bridge. Faults come from outside the members' processes: a host's link down and up (every
 * packet to and from it lost), and a one-way cut (a blackhole route in one host for another's
 * address: its packets to that host are dropped, the other way still flows). {@link #close()}
 * removes every namespace, link and the bridge ({@code net down}).
 *
 * <p>Needs root and {@code ip netns}: {@link #available()} says whether this machine has both.
 */
final class NetnsHosts implements AutoCloseable {
  /** One member's host: its namespace, its address, and the host end of its link. */
  record Host(String namespace, String address, String link) {}

  private static final Path SCRIPT = Path.of("bin", "netns-cluster").toAbsolutePath();

  private final String tag;
  private final List<Host> hosts = new ArrayList<>();

  private NetnsHosts(String tag, String subnet, int size) {
    this.tag = tag;
    for (int i = 1; i <= size; i++) {
      hosts.add(new Host(tag + "-infra" + i, subnet + "." + (10 + i), tag + "v" + i));
    }
  }

  /** {@code size} hosts on a /24 of 10.213.100-199 picked at random, under a tag of its own. */
  static NetnsHosts up(int size) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    String tag = "t" + random.nextInt(10_000, 100_000);
    String subnet = "10.213." + random.nextInt(100, 200);
    NetnsHosts n = new NetnsHosts(tag, subnet, size);
    Run r = run(List.of(SCRIPT.toString(), "net", "up", "--size", Integer.toString(size), "--tag", tag,
        "--subnet", subnet));
    if (r.exit != 0) {
      n.close();
      throw new IllegalStateException("netns-cluster net up failed: " + r.output);
    }
    return n;
  }

  /** Root and a working {@code ip netns} (a namespace can be made and removed). */
  static boolean available() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return false;
    }
    String probe = "aeprobe" + ThreadLocalRandom.current().nextInt(100_000);
    boolean made = run(List.of("ip", "netns", "add", probe)).exit == 0;
    run(List.of("ip", "netns", "del", probe));
    return made;
  }

  List<Host> hosts() {
    return List.copyOf(hosts);
  }

  /** Takes {@code host}'s link down (a real partition of it) or back up. */
  void link(Host host, boolean up) {
    must(List.of("ip", "link", "set", host.link(), up ? "up" : "down"));
  }

  /**
   * Drops every packet {@code from} sends to {@code to} (a blackhole route in {@code from}'s
   * namespace); {@code to}'s packets to {@code from} still arrive. {@code cut=false} heals it.
   */
  void oneWay(Host from, Host to, boolean cut) {
    must(List.of("ip", "-n", from.namespace(), "route", cut ? "add" : "del", "blackhole", to.address() + "/32"));
  }

  /** {@code cmd} run in {@code host}'s namespace. */
  static List<String> in(Host host, List<String> cmd) {
    List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", host.namespace()));
    all.addAll(cmd);
    return all;
  }

  private static void must(List<String> cmd) {
    Run r = run(cmd);
    if (r.exit != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " failed: " + r.output);
    }
  }

  private record Run(int exit, String output) {}

  private static Run run(List<String> cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return new Run(-1, out + " (timed out)");
      }
      return new Run(p.exitValue(), out);
    } catch (IOException e) {
      return new Run(-1, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Run(-1, e.toString());
    }
  }

  @Override
  public void close() {
    run(List.of(SCRIPT.toString(), "net", "down", "--tag", tag));
  }
}
