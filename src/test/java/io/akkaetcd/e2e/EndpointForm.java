package io.akkaetcd.e2e;

/**
 * How etcdctl is given a server's endpoint. etcd serves both; grpc-go sends them differently
 * (with a URL, the per-endpoint commands send it whole as the :authority), so the differential
 * suites play everything in both forms.
 */
enum EndpointForm {
  /** {@code 127.0.0.1:PORT} */
  HOST_PORT,
  /** {@code http://127.0.0.1:PORT} */
  URL;

  String of(ServerProcess server) {
    return this == URL ? server.clientUrl() : server.endpoint();
  }
}
