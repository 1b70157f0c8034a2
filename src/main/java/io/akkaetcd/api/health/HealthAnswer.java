package io.akkaetcd.api.health;

import java.util.Map;

/**
 * One answer of the health endpoints, transport-free: the status, the body (always text/plain;
 * charset=utf-8, as Go sniffs and http.Error sets it) and the extra headers.
 */
public record HealthAnswer(int status, String body, Map<String, String> headers) {
  public HealthAnswer {
    headers = Map.copyOf(headers);
  }

  static HealthAnswer ok(String body) {
    return new HealthAnswer(200, body, Map.of());
  }

  /** Go's http.Error: the text and a newline, with nosniff. */
  static HealthAnswer error(int status, String text) {
    return new HealthAnswer(status, text + "\n", Map.of("X-Content-Type-Options", "nosniff"));
  }

  /** Any method but GET: 405 with Allow: GET, as etcd's handlers answer. */
  public static HealthAnswer methodNotAllowed() {
    return new HealthAnswer(405, "Method Not Allowed\n",
        Map.of("Allow", "GET", "X-Content-Type-Options", "nosniff"));
  }
}
