package io.akkaetcd.it;

/** A server under test, reachable by etcd clients. */
public interface TestServer extends AutoCloseable {
  /** The client URL, e.g. {@code http://127.0.0.1:40123}. */
  String clientUrl();

  /** Stops the server and waits for it to be gone; safe to call twice. */
  void stop();

  @Override
  default void close() {
    stop();
  }
}
