package io.akkaetcd.loadtest;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Puts through the JSON gateway: POST /v3/kv/put with base64 key and value over keep-alive
 * HTTP/1.1 connections, to the endpoint of the gRPC channels. By default ({@code --http-client
 * lean}) each client has its own connection of one {@link Http1Client}, whose cost per request is
 * small beside a server's; {@code --http-client jdk} uses a JDK HttpClient per --conns instead, each
 * opening a connection per client it carries (64 clients over 8 of them hold 64 connections).
 */
final class GatewayLoad {
  private GatewayLoad() {}

  private static final byte[] KEY_FIELD = "{\"key\":\"".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] VALUE_FIELD = "\",\"value\":\"".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] END = "\"}".getBytes(StandardCharsets.US_ASCII);

  static Report put(Options o, List<ManagedChannel> ch, int clients, long total, double rate) throws InterruptedException {
    String client = o.string("http-client", "lean");
    return switch (client) {
      case "lean" -> leanPut(o, ch, clients, total, rate);
      case "jdk" -> jdkPut(o, ch, clients, total, rate);
      default -> throw new IllegalArgumentException("--http-client must be lean or jdk: " + client);
    };
  }

  private static Report leanPut(Options o, List<ManagedChannel> ch, int clients, long total, double rate)
      throws InterruptedException {
    Base64.Encoder b64 = Base64.getEncoder();
    try (Http1Client http = new Http1Client(address(ch), "/v3/kv/put", clients)) {
      return KvLoad.put("gateway-put", o, http.connections(), (c, req, done) -> {
        byte[] body = c.scratch();
        int n = append(body, 0, KEY_FIELD);
        n = append(body, n, b64.encode(req.getKey().toByteArray()));
        n = append(body, n, VALUE_FIELD);
        n = append(body, n, b64.encode(req.getValue().toByteArray()));
        n = append(body, n, END);
        c.post(body, n, done);
      }, clients, total, rate);
    }
  }

  /** Splits each event's latency: put sent to put answered, put answered to event read (may be negative). */
  private static void phases(Report report, long[] sent, long[] acked, long[] arrived) {
    long[] ack = new long[sent.length];
    long[] after = new long[sent.length];
    for (int i = 0; i < sent.length; i++) {
      ack[i] = acked[i] - sent[i];
      after[i] = arrived[i] - acked[i];
    }
    java.util.Arrays.sort(ack);
    java.util.Arrays.sort(after);
    for (double p : new double[] {50, 99}) {
      int at = Math.max(0, (int) Math.ceil(p / 100 * sent.length) - 1);
      report.extra.put("put_ack_p" + (int) p + "_ms", Math.round(ack[at] / 1e3) / 1e3);
      report.extra.put("ack_to_event_p" + (int) p + "_ms", Math.round(after[at] / 1e3) / 1e3);
    }
  }

  /** The endpoint of the gRPC channels. */
  private static InetSocketAddress address(List<ManagedChannel> ch) {
    String authority = ch.get(0).authority();
    int colon = authority.lastIndexOf(':');
    return new InetSocketAddress(authority.substring(0, colon), Integer.parseInt(authority.substring(colon + 1)));
  }

  private static int append(byte[] to, int at, byte[] bytes) {
    System.arraycopy(bytes, 0, to, at, bytes.length);
    return at + bytes.length;
  }

  private static Report jdkPut(Options o, List<ManagedChannel> ch, int clients, long total, double rate)
      throws InterruptedException {
    String base = "http://" + ch.get(0).authority();
    List<HttpClient> https = new ArrayList<>();
    for (int i = 0; i < ch.size(); i++) {
      https.add(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
    }
    URI put = URI.create(base + "/v3/kv/put");
    Base64.Encoder b64 = Base64.getEncoder();
    return KvLoad.put("gateway-put", o, https, (http, req, done) -> {
      String json = "{\"key\":\"" + b64.encodeToString(req.getKey().toByteArray()) + "\",\"value\":\""
          + b64.encodeToString(req.getValue().toByteArray()) + "\"}";
      http.sendAsync(HttpRequest.newBuilder(put).POST(HttpRequest.BodyPublishers.ofString(json)).build(),
          HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> {
            if (e != null) done.accept(Status.UNAVAILABLE.withDescription(String.valueOf(e)));
            else if (r.statusCode() != 200) done.accept(Status.UNKNOWN.withDescription(r.statusCode() + " " + r.body()));
            else done.accept(Status.OK);
          });
    }, clients, total, rate);
  }

  /**
   * Gateway watch latency: one chunked POST /v3/watch on one key (a plain socket, read by one
   * thread), then --put-total puts over gRPC by one client at --put-rate; each event line's latency
   * is from its put's send. One putter, so the events arrive in the order the puts were sent.
   */
  static Report watchLatency(Options o, List<ManagedChannel> ch) throws InterruptedException {
    int puts = o.integer("put-total", 1000);
    double rate = o.decimal("put-rate", 100);
    com.google.protobuf.ByteString key = com.google.protobuf.ByteString.copyFromUtf8("gateway-watch");
    String create = "{\"create_request\":{\"key\":\"" + Base64.getEncoder().encodeToString(key.toByteArray()) + "\"}}";
    ChunkedStream watch;
    try {
      watch = ChunkedStream.post(address(ch), "/v3/watch", create);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    long[] sent = new long[puts];
    long[] acked = new long[puts];
    long[] arrived = new long[puts];
    Report report = new Report("gateway-watch-latency", puts);
    CountDownLatch created = new CountDownLatch(1);
    CountDownLatch delivered = new CountDownLatch(puts);
    AtomicInteger events = new AtomicInteger();
    Thread reader = new Thread(() -> {
      try (java.io.BufferedReader r = new java.io.BufferedReader(
          new java.io.InputStreamReader(watch, java.nio.charset.StandardCharsets.UTF_8))) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          if (line.contains("\"created\":true")) created.countDown();
          // a line may carry several events: count each "kv"
          for (int at = line.indexOf("\"kv\":"); at >= 0; at = line.indexOf("\"kv\":", at + 1)) {
            int i = events.getAndIncrement();
            if (i < puts) {
              arrived[i] = System.nanoTime();
              report.ok(arrived[i] - sent[i]);
              delivered.countDown();
            }
          }
        }
      } catch (java.io.IOException closed) {
        // the run closed the stream
      }
    }, "gateway-watch-reader");
    reader.setDaemon(true);
    reader.start();
    if (!created.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("gateway watch not created");
    report.start();
    com.google.protobuf.ByteString value = KvLoad.randomBytes(o.integer("val-size", 8));
    ClosedLoop.run("gateway-watch-puts", ch.subList(0, 1), 1, puts, rate, (c, client, seq, done) -> {
      sent[(int) seq] = System.nanoTime();
      Rpc.call(c, Rpc.PUT, io.akkaetcd.proto.etcdserverpb.PutRequest.newBuilder().setKey(key).setValue(value).build(),
          (r, s) -> {
            acked[(int) seq] = System.nanoTime();
            done.accept(s);
          });
    });
    if (!delivered.await(60, TimeUnit.SECONDS)) report.error("events missing: " + delivered.getCount());
    report.end();
    phases(report, sent, acked, arrived);
    try {
      watch.close();
    } catch (java.io.IOException ignored) {
      // the stream is done with either way
    }
    return report;
  }
}
