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
}
