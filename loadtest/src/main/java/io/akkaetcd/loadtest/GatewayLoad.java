package io.akkaetcd.loadtest;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Puts through the JSON gateway: POST /v3/kv/put with base64 key and value over keep-alive
 * HTTP/1.1 connections (a JDK HttpClient per --conns, each opening a connection per client it
 * carries: 64 clients over 8 of them hold 64 connections), to the endpoint of the gRPC channels.
 */
final class GatewayLoad {
  private GatewayLoad() {}

  static Report put(Options o, List<ManagedChannel> ch, int clients, long total, double rate) throws InterruptedException {
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
   * Gateway watch latency: one chunked POST /v3/watch on one key, then --put-total puts over gRPC by
   * one client at --put-rate; each event line's latency is from its put's send. One putter, so the
   * events arrive in the order the puts were sent.
   */
  static Report watchLatency(Options o, List<ManagedChannel> ch) throws InterruptedException {
    int puts = o.integer("put-total", 1000);
    double rate = o.decimal("put-rate", 100);
    com.google.protobuf.ByteString key = com.google.protobuf.ByteString.copyFromUtf8("gateway-watch");
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    String create = "{\"create_request\":{\"key\":\"" + Base64.getEncoder().encodeToString(key.toByteArray()) + "\"}}";
    HttpResponse<java.io.InputStream> watch;
    try {
      watch = http.send(HttpRequest.newBuilder(URI.create("http://" + ch.get(0).authority() + "/v3/watch"))
          .POST(HttpRequest.BodyPublishers.ofString(create)).build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    long[] sent = new long[puts];
    Report report = new Report("gateway-watch-latency", puts);
    CountDownLatch created = new CountDownLatch(1);
    CountDownLatch delivered = new CountDownLatch(puts);
    AtomicInteger events = new AtomicInteger();
    Thread reader = new Thread(() -> {
      try (java.io.BufferedReader r = new java.io.BufferedReader(
          new java.io.InputStreamReader(watch.body(), java.nio.charset.StandardCharsets.UTF_8))) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          if (line.contains("\"created\":true")) created.countDown();
          // a line may carry several events: count each "kv"
          for (int at = line.indexOf("\"kv\":"); at >= 0; at = line.indexOf("\"kv\":", at + 1)) {
            int i = events.getAndIncrement();
            if (i < puts) {
              report.ok(System.nanoTime() - sent[i]);
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
          (r, s) -> done.accept(s));
    });
    if (!delivered.await(60, TimeUnit.SECONDS)) report.error("events missing: " + delivered.getCount());
    report.end();
    try {
      watch.body().close();
    } catch (java.io.IOException ignored) {
      // the stream is done with either way
    }
    return report;
  }
}
