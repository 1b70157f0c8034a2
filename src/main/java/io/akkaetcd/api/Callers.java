package io.akkaetcd.api;

import io.akkaetcd.auth.AuthInfo;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import io.akkaetcd.proto.etcdserverpb.RequestHeader;

/**
 * The caller a client's proposal carries (etcd's processInternalRaftRequestOnce): its user and
 * the auth revision its credential stood at, checked again when the entry is applied. Every
 * client proposal has the header, an anonymous one with an empty user and revision 0; only the
 * member's own proposals (lease expiry, compaction) go without, and act as root.
 */
final class Callers {
  private Callers() {}

  static InternalRaftRequest.Builder by(AuthInfo who, InternalRaftRequest.Builder request) {
    RequestHeader.Builder header = RequestHeader.newBuilder();
    if (who != null) {
      header.setUsername(who.username()).setAuthRevision(who.revision());
    }
    return request.setHeader(header);
  }
}
