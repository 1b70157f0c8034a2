package io.akkaetcd.loadtest;

import io.grpc.ManagedChannel;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * An etcd-benchmark-equivalent load tool speaking the etcd v3 gRPC API to any etcd-compatible
 * endpoint. Run {@code loadtest/benchmark --help}.
 */
public final class Benchmark {
  static final String USAGE = String.join("\n",
      "usage: loadtest/benchmark <command> [flags]",
      "",
      "commands:",
      "  put                      puts of --key-size/--val-size over --key-space-size keys",
      "  put-overload             puts as put; a put refused with \"too many requests\" is sent again after",
      "                           --retry-backoff-ms (25), doubling up to --retry-backoff-max-ms (1000),",
      "                           ± --retry-jitter (0.1) of it:",
      "                           admitted puts are the operations, refusals counted apart",
      "  range KEY [END]          ranges, --consistency l (linearizable) or s (serializable)",
      "  txn-put                  compare-and-swap Txns, each client on its own key",
      "  txn-mixed                Txns reading or writing a random key, --rw-ratio reads per write",
      "  watch                    --streams x --watchers-per-stream watchers over --key-space-size keys,",
      "                           then --put-total puts as fast as --put-clients can: creation and delivery",
      "  watch-latency            the same on one key with --put-rate puts/s (default 100): delivery latency",
      "  watch-get                serializable gets while watchers watch the key a writer changes",
      "  slow-watcher             watch-latency (--put-rate 200, 100 keys) with progress requests, beside",
      "                           --slow-watchers N (1) streams that never read, --slow-conn own|shared",
      "  lease-keepalive          keep-alives over --leases leases (default 1000), one stream per client",
      "  gateway-put              puts through the JSON gateway (POST /v3/kv/put), a keep-alive HTTP/1.1",
      "                           connection per client (--http-client lean; jdk: --conns JDK HttpClients)",
      "  gateway-watch-latency    a chunked POST /v3/watch; --put-total puts over gRPC at --put-rate: p99 put->event",
      "  lock                     Lock+Unlock cycles (v3lockpb), each client with its own lease, on",
      "                           --names names (default: one per client)",
      "  connect                  a new connection per operation (with --cacert a TLS handshake), one",
      "                           serializable Range of --key (bench-range), close: counts full and",
      "                           resumed TLS handshakes",
      "  authenticate             Authenticate calls as --auth-name (bench), --auth-password (bench-pw)",
      "",
      "common flags (etcd benchmark's names and defaults):",
      "  --endpoints 127.0.0.1:2379   --conns 1   --clients 1   --total 10000   --rate 0 (unlimited)",
      "  --key-size 8   --val-size 8   --key-space-size 1   --sequential-keys false   --consistency l",
      "  --key-prefix ''   --cacert CA.pem (TLS, the JDK's provider)   --user name:password (auth)",
      "",
      "Every run ends with one machine-readable line per report: RESULT {json}.");

  private Benchmark() {}

  public static void main(String[] args) throws Exception {
    Options o = new Options(args);
    if (o.positional.isEmpty() || o.has("help")) {
      System.out.println(USAGE);
      return;
    }
    List<String> endpoints = Arrays.asList(o.string("endpoints", "127.0.0.1:2379").split(","));
    String cacert = o.string("cacert", "");
    ClientAccess transport = cacert.isEmpty() ? ClientAccess.PLAIN
        : new ClientAccess(TlsFiles.jdkClient(java.nio.file.Path.of(cacert)), null, null);
    ClientAccess access = transport.as(o.string("user", ""));
    List<ManagedChannel> channels = Rpc.channels(endpoints, o.integer("conns", 1), access);
    try {
      for (Report r : run(o, channels, () -> Rpc.channels(endpoints, 1, access).get(0))) System.out.print(r.print());
    } finally {
      Rpc.shutdown(channels);
    }
  }

  /** Runs the command named by the first positional argument; it opens no connections of its own. */
  static List<Report> run(Options o, List<ManagedChannel> ch) throws InterruptedException {
    return run(o, ch, () -> {
      throw new IllegalArgumentException("this run opens no new connections");
    });
  }

  /** As above; {@code dial} opens one more connection to the endpoints, as {@code ch} were opened. */
  static List<Report> run(Options o, List<ManagedChannel> ch, Supplier<ManagedChannel> dial) throws InterruptedException {
    int clients = o.integer("clients", 1);
    long total = o.longValue("total", 10000);
    double rate = o.decimal("rate", 0);
    String command = o.positional.get(0);
    List<Report> reports = switch (command) {
      case "put" -> List.of(KvLoad.put(o, ch, clients, total, rate));
      case "put-overload" -> List.of(OverloadLoad.put(o, ch, clients, total));
      case "range" -> List.of(KvLoad.range(o, ch, clients, total, rate));
      case "txn-put" -> List.of(KvLoad.txnPut(o, ch, clients, total, rate));
      case "txn-mixed" -> List.of(KvLoad.txnMixed(o, ch, clients, total, rate));
      case "watch" -> WatchLoad.watch(o, ch, "watch", o.integer("key-space-size", 1000), 0);
      case "watch-latency" -> WatchLoad.watch(o, ch, "watch-latency", 1, 100);
      case "watch-get" -> WatchLoad.watchGet(o, ch, clients, total);
      case "slow-watcher" -> WatchLoad.slowWatcher(o, ch, dial);
      case "lease-keepalive" -> LeaseLoad.keepAlive(o, ch, clients, total, rate);
      case "gateway-put" -> List.of(GatewayLoad.put(o, ch, clients, total, rate));
      case "gateway-watch-latency" -> List.of(GatewayLoad.watchLatency(o, ch));
      case "lock" -> LockLoad.lock(o, ch, clients, total, rate);
      case "connect" -> List.of(ConnectLoad.connect(o, dial, clients, total, rate));
      case "authenticate" -> List.of(AuthLoad.authenticate(o, ch, clients, total, rate));
      default -> throw new IllegalArgumentException("unknown command " + command + "\n" + USAGE);
    };
    o.checkAllUsed();
    return reports;
  }
}
