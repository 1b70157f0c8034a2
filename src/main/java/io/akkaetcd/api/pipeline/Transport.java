package io.akkaetcd.api.pipeline;

/** How a call reached the member. */
public enum Transport {
  /** etcd's gRPC API on a client URL. */
  GRPC,
  /** The in-process client ({@code io.akkaetcd.embed.EtcdClient}): no encoding, no metadata. */
  IN_PROCESS
}
