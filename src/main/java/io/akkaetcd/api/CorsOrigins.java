package io.akkaetcd.api;

import akka.http.javadsl.model.HttpHeader;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.headers.RawHeader;
import java.util.List;
import java.util.Set;

/**
 * etcd's --cors, as its accessController applies it to every plain HTTP answer of a client URL
 * (the gateway, /health, /version, /metrics; not gRPC): with {@code *} (the default) or no origin
 * given, the CORS headers name {@code *}; else they name the request's {@code Origin} only when it
 * is one of the origins exactly as given, and are left out otherwise. Immutable.
 */
public final class CorsOrigins {
  /** etcd's default, --cors=*. */
  public static final CorsOrigins ANY = new CorsOrigins(Set.of("*"));

  private final Set<String> origins;
  /** The headers naming {@code *}, made once: every plain answer carries them by default. */
  private static final List<HttpHeader> ANY_ORIGIN = headers("*");

  private CorsOrigins(Set<String> origins) {
    this.origins = Set.copyOf(origins);
  }

  /** The origins of --cors, comma-separated (etcd's UniqueURLs: each trimmed; "*" allows any). */
  public static CorsOrigins parse(String flag) {
    Set<String> origins = new java.util.HashSet<>();
    for (String origin : flag.split(",")) {
      if (!origin.isBlank()) {
        origins.add(origin.trim());
      }
    }
    return origins.isEmpty() || origins.contains("*") ? ANY : new CorsOrigins(origins);
  }

  /** The CORS headers of an answer to {@code req}; none for an origin not allowed. */
  List<HttpHeader> headers(HttpRequest req) {
    if (origins.contains("*")) {
      return ANY_ORIGIN;
    }
    String origin = req.getHeader("Origin").map(HttpHeader::value).orElse("");
    return origins.contains(origin) ? headers(origin) : List.of();
  }

  private static List<HttpHeader> headers(String origin) {
    return List.of(
        RawHeader.create("Access-Control-Allow-Headers", "accept, content-type, authorization"),
        RawHeader.create("Access-Control-Allow-Methods", "POST, GET, OPTIONS, PUT, DELETE"),
        RawHeader.create("Access-Control-Allow-Origin", origin));
  }
}
