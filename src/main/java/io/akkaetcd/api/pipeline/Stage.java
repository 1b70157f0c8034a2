package io.akkaetcd.api.pipeline;

/**
 * One check every call passes before its service sees it. A stage lets the call go on by
 * returning and refuses it by throwing an {@link io.akkaetcd.errors.EtcdException} with etcd's
 * error, which the transport maps as any service failure. It runs on the transport's thread, so
 * it must not block.
 */
@FunctionalInterface
public interface Stage {
  /** @param request the decoded request of a unary call; null for a stream (checked once, as it opens) */
  void check(Call call, Object request);
}
