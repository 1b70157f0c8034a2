package io.akkaetcd.api.pipeline;

/** How a call reached the member. */
public enum Transport {
  /** etcd's gRPC API on a client URL. */
  GRPC,
  /** etcd's JSON gateway ({@code /v3/...}) on a client URL: a gRPC call in etcd, counted as one. */
  GATEWAY,
  /** The in-process client ({@code io.akkaetcd.embed.EtcdClient}): no encoding, no metadata. */
  IN_PROCESS
}
